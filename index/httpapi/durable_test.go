package httpapi_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/index/httpapi"
)

// TestInsertDurableCheckpointFails makes the checkpoint after an insert fail
// (a directory squats the name of the segment it writes, as a full disk
// would fail it): the insert's records are durable, so it is answered 200
// with their ids (a client that saw an error would insert them again); the
// next write is refused with 500, and after reopening the index holds each
// record once.
func TestInsertDurableCheckpointFails(t *testing.T) {
	s := startServerOpts(t, httpapi.Options{})
	// The first checkpoint (a compaction: the index has doubled) writes
	// generation 2's segment.
	if err := os.Mkdir(filepath.Join(s.dir, "seg-2.sj"), 0o755); err != nil {
		t.Fatal(err)
	}
	recs := make([]string, 1100) // past the first checkpoint's 1,024 records
	for i := range recs {
		recs[i] = fmt.Sprintf("r%d s%d", i, i)
	}
	var resp httpapi.InsertResponse
	s.post("/v1/records", map[string]any{"records": recs}, &resp)
	if len(resp.Results) != len(recs) {
		t.Fatalf("%d results for %d records", len(resp.Results), len(recs))
	}
	for i, r := range resp.Results {
		if r.Status != "inserted" || idOf(r.ID) != uint64(i)+idOf(resp.Results[0].ID) {
			t.Fatalf("record %d: %+v", i, r)
		}
	}
	if code, body := s.do(http.MethodPost, "/v1/records", `{"records": ["x y"]}`); code != http.StatusInternalServerError {
		t.Errorf("an insert after the failed checkpoint: %d %s, want 500", code, body)
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(s.dir, "seg-2.sj"))
	ix, err := index.Open(s.dir, index.OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if st := ix.Stats(); st.Live != uint64(len(recs)) {
		t.Errorf("after reopening: %d live records, want %d", st.Live, len(recs))
	}
}
