// Package fakeclaude is a scripted stand-in for Anthropic's Messages API,
// enough for the real Claude Code CLI to run offline against it: with
// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 the CLI only calls
// POST /v1/messages (streaming), so the server answers that with
// server-sent events built from a script.
//
// A script is chosen per conversation by a marker, `@@name@@`, found in the
// conversation's first user message that has one (the prompt given to
// `claude -p`, or the prompt the script itself gives a subagent). The step
// is the number of assistant messages already in the request, so a resumed
// session continues where it stopped. Requests that match no script (titles,
// compaction summaries, ...) get a short text answer.
package fakeclaude

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
)

// Step is one assistant answer of a script.
type Step struct {
	// Text is said before the tool calls (or alone: then the turn ends).
	Text string
	// Tools are the tool calls of this answer; several run in parallel.
	Tools []Tool
	// Status, when non-zero, answers with this HTTP error instead.
	Status int
	// ErrorMessage is the error's message for Status (default "scripted error").
	ErrorMessage string
	// Wait, when set, is closed by the test to release this answer: it lets
	// a test write to the CLI while a turn is in progress.
	Wait <-chan struct{}
	// Usage, when set, is the answer's token counts (default: input
	// 100 + 10 × step, output 20 + 5 × blocks, no cache).
	Usage *Usage
	// Model, when set, is the model the answer names (default: the
	// requested one).
	Model string
}

// Usage is an answer's token counts, as the Messages API reports them.
type Usage struct {
	Input, Output, CacheRead, CacheCreation int
}

// Tool is one tool_use block.
type Tool struct {
	Name  string
	Input any
}

// Script is the sequence of answers of one conversation.
type Script []Step

// Request is what the server recorded of one call.
type Request struct {
	Key   string // the script's marker, "" when none matched
	Step  int    // assistant messages in the request
	Model string
	Body  json.RawMessage
}

// Server serves the scripts on a loopback port.
type Server struct {
	URL string

	mu      sync.Mutex
	scripts map[string]Script
	// base holds, for scripts set with SetRelative, the step of the
	// first request that chose them (-1 until then).
	base     map[string]int
	requests []Request
	ln       net.Listener
	srv      *http.Server
	nextID   int
}

var markerRE = regexp.MustCompile(`@@([A-Za-z0-9_.:-]+)@@`)

// Start listens on 127.0.0.1 and serves until Close.
func Start() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fakeclaude: listen: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), scripts: map[string]Script{}, base: map[string]int{}, ln: ln}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve)}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// Set installs the script for marker key (`@@key@@` in a prompt).
func (s *Server) Set(key string, sc Script) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts[key] = sc
}

// SetRelative is Set for a script whose steps count from the first
// request that chooses it, not from the conversation's start: for a
// prompt sent to a resumed or compacted conversation, whose number of
// earlier assistant messages depends on the Claude Code version.
func (s *Server) SetRelative(key string, sc Script) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts[key] = sc
	s.base[key] = -1
}

// Requests returns what was asked so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type request struct {
	Model    string    `json:"model"`
	Messages []message `json:"messages"`
	Stream   bool      `json:"stream"`
}

// texts returns the text of a message's content (a string or blocks).
func texts(c json.RawMessage) string {
	var s string
	if json.Unmarshal(c, &s) == nil {
		return s
	}
	var blocks []struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(c, &blocks) != nil {
		return ""
	}
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type == "text" {
			b.WriteString(bl.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// choose finds the conversation's script and step.
func (s *Server) choose(r request) (key string, step int) {
	for _, m := range r.Messages {
		if m.Role == "assistant" {
			step++
		}
	}
	for _, m := range r.Messages {
		if m.Role != "user" {
			continue
		}
		if k := markerRE.FindStringSubmatch(texts(m.Content)); k != nil {
			return k[1], step
		}
	}
	return "", step
}

func (s *Server) serve(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || !strings.HasSuffix(req.URL.Path, "/v1/messages") {
		http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"not found"}}`, http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var r request
	if err := json.Unmarshal(body, &r); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	key, step := s.choose(r)
	s.mu.Lock()
	s.requests = append(s.requests, Request{Key: key, Step: step, Model: r.Model, Body: body})
	sc, ok := s.scripts[key]
	if b, rel := s.base[key]; ok && rel {
		if b < 0 {
			b = step
			s.base[key] = b
		}
		step -= b
	}
	s.nextID++
	id := s.nextID
	s.mu.Unlock()

	st := Step{Text: "Done."}
	if ok && step < len(sc) {
		st = sc[step]
	} else if ok {
		st = Step{Text: "Nothing more to do."}
	}
	if st.Wait != nil {
		select {
		case <-st.Wait:
		case <-req.Context().Done():
			return
		}
	}
	if st.Status != 0 {
		msg := st.ErrorMessage
		if msg == "" {
			msg = "scripted error"
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(st.Status)
		kind := "invalid_request_error"
		if st.Status >= 500 {
			kind = "api_error"
		}
		fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":%q}}`, kind, msg)
		return
	}
	model := r.Model
	if model == "" {
		model = "claude-fake"
	}
	if st.Model != "" {
		model = st.Model
	}
	s.stream(w, r.Stream, id, key, step, model, st)
}

// stream writes one assistant message as Claude Code expects it: SSE when
// the request streams, else one JSON message.
func (s *Server) stream(w http.ResponseWriter, streaming bool, id int, key string, step int, model string, st Step) {
	type block map[string]any
	var content []block
	if st.Text != "" {
		content = append(content, block{"type": "text", "text": st.Text})
	}
	for i, t := range st.Tools {
		in := t.Input
		if in == nil {
			in = map[string]any{}
		}
		content = append(content, block{"type": "tool_use", "id": fmt.Sprintf("toolu_%s_%d_%d_%d", sanitize(key), step, i, id), "name": t.Name, "input": in})
	}
	stop := "end_turn"
	if len(st.Tools) > 0 {
		stop = "tool_use"
	}
	msgID := fmt.Sprintf("msg_fake_%d", id)
	usage := map[string]int{"input_tokens": 100 + 10*step, "output_tokens": 20 + 5*len(content), "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
	if u := st.Usage; u != nil {
		usage = map[string]int{"input_tokens": u.Input, "output_tokens": u.Output, "cache_read_input_tokens": u.CacheRead, "cache_creation_input_tokens": u.CacheCreation}
	}
	if !streaming {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": msgID, "type": "message", "role": "assistant", "model": model,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	send := func(ev string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev, b)
	}
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": usage["input_tokens"], "output_tokens": 1, "cache_read_input_tokens": usage["cache_read_input_tokens"], "cache_creation_input_tokens": usage["cache_creation_input_tokens"]}}})
	for i, b := range content {
		switch b["type"] {
		case "text":
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		case "tool_use":
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			in, _ := json.Marshal(b["input"])
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": usage["output_tokens"]}})
	send("message_stop", map[string]any{"type": "message_stop"})
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func sanitize(s string) string {
	if s == "" {
		return "none"
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, s)
}
