package fakeclaude

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// ask posts a non-streaming request whose conversation has the marker and
// n assistant messages, and returns the answer's text.
func ask(t *testing.T, s *Server, marker string, n int) string {
	t.Helper()
	msgs := []map[string]any{{"role": "user", "content": "go @@" + marker + "@@"}}
	for i := 0; i < n; i++ {
		msgs = append(msgs, map[string]any{"role": "assistant", "content": "ok"}, map[string]any{"role": "user", "content": "more"})
	}
	b, _ := json.Marshal(map[string]any{"model": "m", "messages": msgs})
	resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || len(out.Content) == 0 {
		t.Fatalf("answer: %v %+v", err, out)
	}
	return out.Content[0].Text
}

func TestSetAndSetRelative(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sc := Script{{Text: "zero"}, {Text: "one"}, {Text: "two"}}
	s.Set("abs", sc)
	s.SetRelative("rel", sc)
	if got := ask(t, s, "abs", 1); got != "one" {
		t.Errorf("Set: step 1 answered %q", got)
	}
	// The first request that chooses a relative script is its step 0,
	// however many assistant messages came before.
	if got := ask(t, s, "rel", 2); got != "zero" {
		t.Errorf("SetRelative: first request answered %q", got)
	}
	if got := ask(t, s, "rel", 3); got != "one" {
		t.Errorf("SetRelative: next request answered %q", got)
	}
}
