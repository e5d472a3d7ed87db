package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/container/tools"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/artifact"
	jobpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/jobmanagement_v1"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/util/grpcx"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// bootEnv, when set in the environment of this test binary, makes it the
// boot program of a PROCESS environment (see bootWorker) with the directory
// it names for the staged files.
const bootEnv = "SIMJOIN_BEAM_TEST_BOOT"

func TestMain(m *testing.M) {
	if dir := os.Getenv(bootEnv); dir != "" {
		os.Exit(bootWorker(dir))
	}
	os.Exit(m.Run())
}

// bootWorker does what the Go SDK container's boot program does for a
// runner's PROCESS environment, in a directory of the test's: it asks the
// provision service for the job's endpoints and options, fetches the staged
// worker binary (the --worker_binary of the launch) and runs it as the SDK
// harness in its place. The container's own boot program writes under /tmp,
// which a test must not.
func bootWorker(dir string) int {
	var id, provision string
	for _, a := range os.Args[1:] {
		if v, ok := strings.CutPrefix(a, "--id="); ok {
			id = strings.Trim(v, "'")
		}
		if v, ok := strings.CutPrefix(a, "--provision_endpoint="); ok {
			provision = v
		}
	}
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "boot:", err)
		return 1
	}
	ctx := grpcx.WriteWorkerID(context.Background(), id)
	info, err := tools.ProvisionInfo(ctx, provision)
	if err != nil {
		return fail(err)
	}
	options, err := tools.ProtoToJSON(info.GetPipelineOptions())
	if err != nil {
		return fail(err)
	}
	staged, err := os.MkdirTemp(dir, "staged-")
	if err != nil {
		return fail(err)
	}
	arts, err := artifact.Materialize(ctx, info.GetArtifactEndpoint().GetUrl(), info.GetDependencies(), info.GetRetrievalToken(), staged)
	if err != nil {
		return fail(err)
	}
	name := ""
	for _, a := range arts {
		if a.GetRoleUrn() == artifact.URNGoWorkerBinaryRole || len(arts) == 1 {
			name, _ = artifact.MustExtractFilePayload(a)
		}
	}
	if name == "" {
		return fail(fmt.Errorf("no worker binary among %d artifacts", len(arts)))
	}
	bin := filepath.Join(staged, name)
	if err := os.Chmod(bin, 0o755); err != nil {
		return fail(err)
	}
	args := []string{bin, "--worker=true", "--id=" + id, "--logging_endpoint=" + info.GetLoggingEndpoint().GetUrl(),
		"--control_endpoint=" + info.GetControlEndpoint().GetUrl(), "--options=" + options}
	return fail(syscall.Exec(bin, args, os.Environ()))
}

// goBuild builds a package into out with the go command.
func goBuild(t *testing.T, out, pkg string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-o", out, pkg)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
}

// jobServer is a standalone Prism job server, as a Flink or Spark job
// server stands for those runners.
type jobServer struct {
	endpoint string
	mu       sync.Mutex // protects log
	log      strings.Builder
}

// startJobServer starts the Prism binary on a free port and returns it once
// it serves; the test's cleanup stops it.
func startJobServer(t *testing.T, prism string) *jobServer {
	t.Helper()
	cmd := exec.Command(prism, "--job_port=0", "--serve_http=false", "--log_kind=text", "--log_level=info")
	r, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	js := &jobServer{}
	done := make(chan struct{})
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
		cmd.Wait()
		if t.Failed() {
			js.mu.Lock()
			t.Logf("job server's log:\n%s", js.log.String())
			js.mu.Unlock()
		}
	})
	serving := regexp.MustCompile(`msg="Serving JobManagement" endpoint=(\S+)`)
	ready := make(chan string, 1)
	go func() {
		defer close(done)
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			if m := serving.FindStringSubmatch(sc.Text()); m != nil {
				ready <- m[1]
			}
			js.mu.Lock()
			js.log.WriteString(sc.Text() + "\n")
			js.mu.Unlock()
		}
		io.Copy(io.Discard, r)
		close(ready)
	}()
	ep, ok := <-ready
	if !ok {
		t.Fatal("the job server exited before serving")
	}
	js.endpoint = ep
	return js
}

// wait blocks until the job reaches a final state and returns it.
func (js *jobServer) wait(t *testing.T, id string) jobpb.JobState_Enum {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cc, err := grpc.NewClient(js.endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	stream, err := jobpb.NewJobServiceClient(cc).GetStateStream(ctx, &jobpb.GetJobStateRequest{JobId: id})
	if err != nil {
		t.Fatal(err)
	}
	for {
		ev, err := stream.Recv()
		if err != nil {
			t.Fatalf("job %s: %v", id, err)
		}
		switch s := ev.GetState(); s {
		case jobpb.JobState_DONE, jobpb.JobState_FAILED, jobpb.JobState_CANCELLED, jobpb.JobState_UPDATED, jobpb.JobState_DRAINED:
			return s
		}
	}
}

// launch runs the built command with args and returns its exit status and
// stderr.
func launch(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), stderr.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String()
}

// TestJobServer runs the command against a standalone Prism job server, the
// portable path Flink and Spark take (--runner universal --endpoint):
//   - the LOOPBACK environment, the SDK harness in the launching process,
//     with the job's metrics read back for --stats;
//   - a PROCESS environment, the harness a process the job server starts
//     from the staged worker binary (by default the launching binary
//     itself), launched with --async: the command returns once the job is
//     submitted and the job commits its output itself.
func TestJobServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and Prism's job server and runs jobs on them")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "simjoin-beam")
	prism := filepath.Join(dir, "prism")
	goBuild(t, bin, ".")
	goBuild(t, prism, "github.com/apache/beam/sdks/v2/go/cmd/prism")
	js := startJobServer(t, prism)

	want, kept := setsOutputs(t)
	abs, err := filepath.Abs(sets)
	if err != nil {
		t.Fatal(err)
	}

	out := filepath.Join(dir, "loopback", "pairs")
	os.Mkdir(filepath.Dir(out), 0o755)
	code, stderr := launch(t, bin, "join", "-t", "0.8", "--input", abs, "--output", out, "--stats",
		"--runner", "universal", "--endpoint", js.endpoint, "--environment_type", "LOOPBACK")
	if code != 0 {
		t.Fatalf("LOOPBACK: exit %d: %s", code, stderr)
	}
	if got := shards(t, out, 1); !slices.Equal(got, want) {
		t.Errorf("LOOPBACK: %d lines, want %d", len(got), len(want))
	}
	if !strings.Contains(stderr, "results                    500") {
		t.Errorf("LOOPBACK --stats: no results row of 500:\n%s", stderr)
	}

	boot, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	config, _ := json.Marshal(map[string]any{"command": boot, "env": map[string]string{bootEnv: dir}})
	out = filepath.Join(dir, "process", "kept")
	os.Mkdir(filepath.Dir(out), 0o755)
	code, stderr = launch(t, bin, "dedup", "--method", "exact", "-t", "0.8", "--input", abs, "--output", out, "--shards", "2",
		"--runner", "universal", "--endpoint", js.endpoint, "--environment_type", "PROCESS", "--environment_config", string(config), "--async")
	m := regexp.MustCompile(`^simjoin-beam: job (\S+) submitted; `).FindStringSubmatch(stderr)
	if code != 0 || m == nil {
		t.Fatalf("PROCESS --async: exit %d, stderr %q", code, stderr)
	}
	if s := js.wait(t, m[1]); s != jobpb.JobState_DONE {
		t.Fatalf("PROCESS --async: job %s ended %v", m[1], s)
	}
	if got := shards(t, out, 2); !slices.Equal(got, kept) {
		t.Errorf("PROCESS --async: %d kept, want %d", len(got), len(kept))
	}
}
