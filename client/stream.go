package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/sepad/sepad/api"
	"github.com/sepad/sepad/export"
)

// Stream copies the answer to path to w as it comes: from the daemon's
// socket, else from the database opened read-only. An error answer, or a
// stream the server reports broken (api.ExportErrorTrailer), is an error.
func (c *Client) Stream(path string, w io.Writer) (*export.Stats, error) {
	sock := api.SocketPath(c.home)
	cl := api.SocketClient(sock, 0) // no overall timeout: a large export takes its time
	resp, err := cl.Get("http://sepad" + path)
	if err == nil {
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			_, err := Answer(resp.StatusCode, b)
			return nil, err
		}
		if _, err := io.Copy(w, resp.Body); err != nil {
			return nil, fmt.Errorf("reading the answer: %w", err)
		}
		if e := resp.Trailer.Get(api.ExportErrorTrailer); e != "" {
			return nil, fmt.Errorf("export broke off: %s", e)
		}
		return exportStats(resp.Trailer.Get(api.ExportStatsTrailer)), nil
	}
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "dial" {
		return nil, fmt.Errorf("ask the daemon on %s: %w", sock, err)
	}
	if err := c.openDirect(); err != nil {
		return nil, err
	}
	if c.noDB {
		return nil, fmt.Errorf("no database at %s yet: nothing to export", filepath.Join(c.home, "sepa.db"))
	}
	req, err := http.NewRequest(http.MethodGet, "http://local"+path, nil)
	if err != nil {
		return nil, err
	}
	sw := &streamWriter{w: w, header: http.Header{}}
	c.local.ServeHTTP(sw, req)
	if sw.err != nil {
		return nil, fmt.Errorf("writing: %w", sw.err)
	}
	if sw.status != http.StatusOK {
		_, err := Answer(sw.status, []byte(sw.body.String()))
		return nil, err
	}
	if e := sw.header.Get(api.ExportErrorTrailer); e != "" {
		return nil, fmt.Errorf("export broke off: %s", e)
	}
	return exportStats(sw.header.Get(api.ExportStatsTrailer)), nil
}

// exportStats reads the export's counts from its trailer (nil when the
// daemon is older and sends none).
func exportStats(v string) *export.Stats {
	var st export.Stats
	if v == "" || json.Unmarshal([]byte(v), &st) != nil {
		return nil
	}
	return &st
}

// streamWriter is an http.ResponseWriter that passes a 200 answer's body
// on to w and keeps another status's body as the error.
type streamWriter struct {
	w      io.Writer
	header http.Header
	status int
	body   strings.Builder
	err    error
}

func (s *streamWriter) Header() http.Header { return s.header }

func (s *streamWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
}

func (s *streamWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	if s.status != http.StatusOK {
		return s.body.Write(b)
	}
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(b)
	s.err = err
	return n, err
}

// StreamFile is Stream into file: written beside it and renamed over it
// when complete, so a broken export leaves no half file.
func (c *Client) StreamFile(path, file string) (*export.Stats, error) {
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name()) // after the rename, a no-op
	defer tmp.Close()
	stats, err := c.Stream(path, tmp)
	if err != nil {
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	return stats, os.Rename(tmp.Name(), file)
}
