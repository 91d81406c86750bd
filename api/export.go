package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/sepad/sepad/export"
	"github.com/sepad/sepad/query"
)

// ExportErrorTrailer is the HTTP trailer GET /v1/export sets when the
// stream broke after its first bytes (the status was already sent).
const ExportErrorTrailer = "Sepad-Export-Error"

// ExportStatsTrailer is the HTTP trailer GET /v1/export ends with: the
// export's counts (export.Stats) in JSON, so that a client can say why
// nothing was exported.
const ExportStatsTrailer = "Sepad-Export-Stats"

// exportHandler is GET /v1/export?format=F[&skill=S][&since=T][&min_value=V]:
// the stored executions streamed in commit order (package export,
// docs/export.md), never held in memory whole.
func (h *handler) exportHandler(w http.ResponseWriter, r *http.Request) {
	if h.o.DB == nil {
		writeError(w, http.StatusServiceUnavailable, errors.New("no database yet: the daemon has not run"), nil)
		return
	}
	q := r.URL.Query()
	o := export.Options{Format: q.Get("format"), Skill: q.Get("skill")}
	if o.Format == "" {
		o.Format = export.JSONL
	}
	known := false
	for _, f := range export.Formats {
		known = known || f == o.Format
	}
	if !known {
		writeError(w, http.StatusBadRequest, fmt.Errorf("%w: format %q: want one of %s", query.ErrBadRequest, o.Format, strings.Join(export.Formats, ", ")), nil)
		return
	}
	if len(o.Skill) > 4096 {
		writeError(w, http.StatusBadRequest, fmt.Errorf("%w: skill too long", query.ErrBadRequest), nil)
		return
	}
	var err error
	if o.Since, err = query.ParseSince(q.Get("since"), h.o.Now()); err != nil {
		writeError(w, http.StatusBadRequest, err, nil)
		return
	}
	if v := q.Get("min_value"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 || f > 1 {
			writeError(w, http.StatusBadRequest, fmt.Errorf("%w: min_value %q: want a number from 0 to 1", query.ErrBadRequest, v), nil)
			return
		}
		o.MinValue = &f
	}
	ct := "application/x-ndjson"
	if o.Format == export.CSV {
		ct = "text/csv; charset=utf-8"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Trailer", ExportErrorTrailer+", "+ExportStatsTrailer)
	w.WriteHeader(http.StatusOK)
	st, err := export.Write(w, h.o.DB, o)
	if err != nil {
		h.o.Logger.Error("api export failed", "format", o.Format, "err", err)
		w.Header().Set(ExportErrorTrailer, err.Error())
	}
	if b, err := json.Marshal(st); err == nil {
		w.Header().Set(ExportStatsTrailer, string(b))
	}
}
