package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/simjoin/simjoin/index"
)

// compact answers POST /v1/compact: the index is compacted (its segments
// merged, deleted records dropped, an exact index's tokens re-ordered)
// while searches go on; writes wait for it. {"live": 7, "dropped": 2}: the
// live records, and the deleted ones it dropped.
func (s *Server) compact(w http.ResponseWriter, r *http.Request) {
	s.compactMu.Lock()
	defer s.compactMu.Unlock()
	before := s.ix.Stats()
	if err := s.ix.Compact(context.Background()); err != nil {
		s.fail(w, r, err)
		return
	}
	after := s.ix.Stats()
	writeJSON(w, http.StatusOK, struct {
		Live    uint64 `json:"live"`
		Dropped uint64 `json:"dropped"`
	}{after.Live, after.Dropped - before.Dropped})
}

// maybeCompact applies the compaction policy after a request that may
// have deleted records: when more than Options.CompactDeleted of the
// records held are deleted and no compaction runs, one starts in the
// background, holding compactMu from now on.
func (s *Server) maybeCompact() {
	if s.opt.CompactDeleted < 0 {
		return
	}
	st := s.ix.Stats()
	if held := st.Live + st.Deleted; held == 0 || float64(st.Deleted) <= s.opt.CompactDeleted*float64(held) {
		return
	}
	if !s.compactMu.TryLock() {
		return // one runs
	}
	s.maint.Go(func() {
		defer s.compactMu.Unlock()
		if err := s.ix.Compact(context.Background()); err != nil {
			s.opt.ErrorLog.Printf("compaction of the policy (over %v of the records deleted): %v", s.opt.CompactDeleted, err)
		}
	})
}

// backupRequest is the body of POST /v1/backup.
type backupRequest struct {
	Name string `json:"name"`
}

// backup answers POST /v1/backup {"name": "NAME"}: a consistent copy of the
// index (index.Index.Backup) in Options.BackupDir/NAME, a new directory, of
// every record acknowledged before the request; {"backup": "DIR/NAME",
// "files": 6, "linked": 4, "bytes": 1234}. NAME is a plain name (no
// separator, not "." or ".."); 403 when backups are off.
func (s *Server) backup(w http.ResponseWriter, r *http.Request) {
	if s.opt.BackupDir == "" {
		writeError(w, http.StatusForbidden, "backups are off (the server was started without a backup directory)")
		return
	}
	var req backupRequest
	if err := s.decode(w, r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	if req.Name == "" || req.Name == "." || req.Name == ".." || strings.ContainsAny(req.Name, "/\\\x00") {
		writeError(w, http.StatusBadRequest, "name: want a plain directory name (no separator, not . or ..)")
		return
	}
	dest := filepath.Join(s.opt.BackupDir, req.Name)
	if _, err := os.Lstat(dest); err == nil {
		writeError(w, http.StatusConflict, fmt.Sprintf("name: %s already exists", req.Name))
		return
	}
	st, err := s.ix.Backup(dest)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Backup string `json:"backup"`
		Files  int    `json:"files"`
		Linked int    `json:"linked"`
		Bytes  int64  `json:"bytes"`
	}{dest, st.Files, st.Linked, st.Bytes})
}

// verify answers POST /v1/verify: every file of the index re-read and its
// checksums checked while it serves (index.Index.Verify): {"status": "ok"}
// or {"status": "damaged", "reason": "..."} naming the file.
func (s *Server) verify(w http.ResponseWriter, r *http.Request) {
	err := s.ix.Verify()
	var ce *index.CorruptError
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, struct {
			Status string `json:"status"`
		}{"ok"})
	case errors.As(err, &ce):
		writeJSON(w, http.StatusOK, struct {
			Status string `json:"status"`
			Reason string `json:"reason"`
		}{"damaged", err.Error()})
	default:
		s.fail(w, r, err)
	}
}
