package api

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/hooks"
)

// TestHookSlowBodies: clients that send their headers and then their
// body too slowly take every hook slot, but only for their body's own
// time (HookBodyTime), not the 30 s of a whole request: each is answered
// 408 and counted, and the slots admit the next request.
func TestHookSlowBodies(t *testing.T) {
	home := shortHome(t)
	db := testDB(t, home)
	m := NewMetrics(MetricsOptions{})
	s := New(Options{DB: db, Home: home, Metrics: m, Hook: &hooks.Options{Home: home, NoFiles: true},
		HookBodyTime: 200 * time.Millisecond})
	if err := s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	payload := `{"session_id":"s","hook_event_name":"Stop","cwd":"/p"}`
	// Four slow clients, one per slot: the headers and a part of the
	// body, then nothing.
	var slow []net.Conn
	for i := 0; i < DefaultMaxHookPosts; i++ {
		c, err := net.Dial("unix", SocketPath(home))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /v1/hook HTTP/1.1\r\nHost: sepad\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(payload), payload[:10])
		slow = append(slow, c)
	}
	for i, c := range slow {
		// Generous: the body's time is 200 ms; a whole request's, 30 s.
		c.SetReadDeadline(time.Now().Add(20 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("slow client %d: no answer: %v", i, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestTimeout {
			t.Errorf("slow client %d: %d, want 408", i, resp.StatusCode)
		}
	}
	// The slots are free again: a prompt request is recorded.
	uc := SocketClient(SocketPath(home), 0)
	resp, err := uc.Post("http://sepad/v1/hook", "application/json", strings.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("a prompt request after the slow ones: %d", resp.StatusCode)
	}
	_, body, _ := get(t, m.Handler(), http.MethodGet, "/metrics")
	if want := fmt.Sprintf(`sepad_hook_requests_refused_total{reason="slow"} %d`, DefaultMaxHookPosts); !strings.Contains(string(body), want) {
		t.Errorf("want %s in the metrics", want)
	}
}

// TestHookBodyTime: a body's time grows with its size, from
// HookBodyTime, at hookBodyRate; a chunked body is given the time of the
// largest body allowed.
func TestHookBodyTime(t *testing.T) {
	h := &handler{o: Options{HookBodyTime: 2 * time.Second, MaxHookBody: 64 << 20}}
	for _, tc := range []struct {
		length int64
		want   time.Duration
	}{
		{0, 2 * time.Second},
		{1 << 10, 2*time.Second + time.Second/4096},
		{8 << 20, 4 * time.Second},
		{60 << 20, 17 * time.Second},
		{-1, 18 * time.Second},
	} {
		if got := h.bodyTime(tc.length); got != tc.want {
			t.Errorf("bodyTime(%d) = %v, want %v", tc.length, got, tc.want)
		}
	}
}
