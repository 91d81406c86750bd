package hooks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/sepad/sepad/event"
	"github.com/sepad/sepad/spool"
)

func TestHandleReader(t *testing.T) {
	now := func() time.Time { return t0 }
	for _, tc := range []struct {
		name        string
		payload     string
		limit       int64
		quarantined string
	}{
		{"within the limit", `{"session_id":"s","hook_event_name":"Stop"}`, 1000, ""},
		{"exactly the limit", `{"session_id":"s","hook_event_name":"Stop"}`, 43, ""},
		{"over the limit", `{"session_id":"s","hook_event_name":"Stop","x":"` + strings.Repeat("x", 5000) + `"}`, 1000, "over the 1000 byte limit"},
		{"garbage", "\xff\xfe", 1000, "not a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			res, err := HandleReader(strings.NewReader(tc.payload), Options{Home: home, MaxPayload: tc.limit, Now: now, NoFiles: true})
			if err != nil || res.Wrote != spool.Path(home) || res.Fallback {
				t.Fatalf("HandleReader = %+v, %v", res, err)
			}
			b, _ := os.ReadFile(spool.Path(home))
			if len(b) != res.Bytes {
				t.Fatalf("Result.Bytes %d, file has %d", res.Bytes, len(b))
			}
			l := decode(t, bytes.TrimSuffix(b, []byte("\n")))
			if res.Quarantined != (tc.quarantined != "") || (l.ev.HookEvent == event.Quarantined) != res.Quarantined {
				t.Fatalf("quarantined = %v, line %s", res.Quarantined, b)
			}
			if tc.quarantined == "" {
				return
			}
			if !strings.Contains(l.sepa.Quarantine, tc.quarantined) {
				t.Fatalf("reason %q", l.sepa.Quarantine)
			}
			if int64(len(tc.payload)) > tc.limit {
				sum := sha256.Sum256([]byte(tc.payload))
				c := l.sepa.Cut
				if len(c) != 1 || c[0].Field != "/sepa/raw" || c[0].Len != len(tc.payload) || c[0].SHA256 != hex.EncodeToString(sum[:]) {
					t.Fatalf("cut %+v: want the full payload's length and hash", c)
				}
				if !strings.HasPrefix(tc.payload, strings.Split(l.sepa.Raw, CutMarker)[0]) {
					t.Fatal("raw does not keep the payload's head")
				}
			}
		})
	}
}

type failingReader struct{ data io.Reader }

func (f failingReader) Read(p []byte) (int, error) {
	n, err := f.data.Read(p)
	if err == io.EOF {
		return n, errors.New("connection reset")
	}
	return n, err
}

func TestHandleReaderReadError(t *testing.T) {
	home := t.TempDir()
	res, err := HandleReader(failingReader{strings.NewReader(`{"session_id":"s"`)}, Options{Home: home, Now: func() time.Time { return t0 }})
	if err != nil || !res.Quarantined {
		t.Fatalf("%+v %v", res, err)
	}
	b, _ := os.ReadFile(spool.Path(home))
	l := decode(t, bytes.TrimSpace(b))
	if !strings.Contains(l.sepa.Quarantine, "connection reset") || l.sepa.Raw != `{"session_id":"s"` {
		t.Fatalf("sepa %+v", l.sepa)
	}
}

// TestReadUpTo checks readUpTo against io.ReadAll(io.LimitReader) on
// payloads around its first buffer and the limit, through readers that
// return short reads, data with io.EOF, and errors.
func TestReadUpTo(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 5000) // 80,000 bytes
	errBoom := errors.New("boom")
	readers := map[string]func([]byte) io.Reader{
		"plain":      func(b []byte) io.Reader { return bytes.NewReader(b) },
		"one byte":   func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
		"half":       func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) },
		"data+EOF":   func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) },
		"error":      func(b []byte) io.Reader { return io.MultiReader(bytes.NewReader(b), iotest.ErrReader(errBoom)) },
		"stdin-like": func(b []byte) io.Reader { return eofOnZero{bytes.NewReader(b)} },
	}
	for _, size := range []int{0, 1, 2117, firstRead - 1, firstRead, firstRead + 1, 2 * firstRead, len(data)} {
		for _, limit := range []int64{1, 100, firstRead, firstRead + 1, 50_000, DefaultMaxPayload} {
			for name, mk := range readers {
				in := data[:size]
				want, werr := io.ReadAll(io.LimitReader(mk(in), limit))
				got, gerr := readUpTo(mk(in), limit)
				if !bytes.Equal(got, want) || !errors.Is(gerr, werr) && (gerr == nil) != (werr == nil) {
					t.Errorf("size %d limit %d %s: got %d bytes, %v; want %d bytes, %v", size, limit, name, len(got), gerr, len(want), werr)
				}
				if name == "error" && int64(size) < limit && !errors.Is(gerr, errBoom) {
					t.Errorf("size %d limit %d: error %v, want %v", size, limit, gerr, errBoom)
				}
			}
		}
	}
}

// eofOnZero returns what fdStream returns at the end of a pipe: (0, io.EOF)
// after the last byte, never data together with io.EOF.
type eofOnZero struct{ r *bytes.Reader }

func (e eofOnZero) Read(p []byte) (int, error) { return e.r.Read(p) }
