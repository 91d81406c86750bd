package api

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/sepad/sepad/importer"
	"github.com/sepad/sepad/query"
)

// MaxImport bounds a POST /v1/import body: the records of the logs
// `sepad import` read, one JSON object per line.
const MaxImport = 1 << 30

// importHandler is POST /v1/import: the body is importer records (one
// JSON object per line, importer.WriteRecords); the daemon's collector
// feeds them through its pipeline between two of its commits
// (collector.Import) and answers what it did (importer.Report). Without
// an importer (a read-only CLI query) it answers 503.
func (h *handler) importHandler(w http.ResponseWriter, r *http.Request) {
	if h.o.Import == nil {
		writeError(w, http.StatusServiceUnavailable, errors.New("this server imports nothing (no collector)"), nil)
		return
	}
	recs, err := importer.ReadRecords(http.MaxBytesReader(w, r.Body, MaxImport))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Errorf("the import is over %d bytes: import fewer files at a time", MaxImport), nil)
		return
	case err != nil:
		writeError(w, http.StatusBadRequest, fmt.Errorf("%w: %v", query.ErrBadRequest, err), nil)
		return
	}
	rep, err := h.o.Import(recs)
	if err != nil {
		h.answerError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}
