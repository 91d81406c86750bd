package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/render"
	"github.com/sepad/sepad/store"
)

// TestSkillsAsText: GET /v1/skills?format=text is `sepad grades`'s table
// drawn from the same document the JSON answer holds, text/plain, cached
// apart from the JSON (each keeps its media type) and following commits.
func TestSkillsAsText(t *testing.T) {
	home := t.TempDir()
	db := testDB(t, home)
	h := NewHandler(Options{DB: db, Home: home, Cache: true})
	check := func(query string, all bool) {
		t.Helper()
		status, body, hdr := get(t, h, http.MethodGet, "/v1/skills?"+query)
		if status != 200 || hdr.Get("Content-Type") != "application/json" {
			t.Fatalf("%s: %d %q", query, status, hdr.Get("Content-Type"))
		}
		want := drawn(t, body, all)
		for i := 0; i < 2; i++ { // computed, then cached
			status, text, hdr := get(t, h, http.MethodGet, "/v1/skills?format=text&"+query)
			if status != 200 || hdr.Get("Content-Type") != textType {
				t.Fatalf("%s as text: %d %q", query, status, hdr.Get("Content-Type"))
			}
			if !bytes.Equal(text, want) {
				t.Fatalf("%s as text:\n%s\nwant the table drawn from the JSON answer:\n%s", query, text, want)
			}
		}
		if status, body, hdr := get(t, h, http.MethodGet, "/v1/skills?format=json&"+query); status != 200 || hdr.Get("Content-Type") != "application/json" || !json.Valid(body) {
			t.Fatalf("%s as json: %d %q", query, status, hdr.Get("Content-Type"))
		}
	}
	check("", false)
	check("all_versions=true", true)
	check("match=review", false)
	_, before, _ := get(t, h, http.MethodGet, "/v1/skills?format=text&match=review")
	if err := db.Commit(&store.Batch{Executions: []record.Scored{scoredExec("new000000000", "review", shop, "", "dddddddddddd", 75, t0.Add(time.Hour))}}); err != nil {
		t.Fatal(err)
	}
	_, after, _ := get(t, h, http.MethodGet, "/v1/skills?format=text&match=review")
	if bytes.Equal(before, after) {
		t.Fatalf("the table did not follow a commit:\n%s", after)
	}
	check("match=review", false)
	// Errors stay JSON.
	status, body, hdr := get(t, h, http.MethodGet, "/v1/skills?format=text&match=nope")
	if status != 404 || hdr.Get("Content-Type") != "application/json" || !json.Valid(body) {
		t.Fatalf("an error as text: %d %q %s", status, hdr.Get("Content-Type"), body)
	}
}

// drawn is the grades table of a GET /v1/skills answer.
func drawn(t *testing.T, body []byte, all bool) []byte {
	t.Helper()
	var doc query.Grades
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	render.Grades(&b, &doc, all)
	return b.Bytes()
}

// TestIndentedJSON: indent=true is the same document indented by two
// spaces, as `sepad grades --json` prints it; errors stay compact.
func TestIndentedJSON(t *testing.T) {
	home := t.TempDir()
	db := testDB(t, home)
	h := NewHandler(Options{DB: db, Home: home, Cache: true})
	for _, q := range []string{"", "all_versions=true", "match=review"} {
		_, compact, _ := get(t, h, http.MethodGet, "/v1/skills?"+q)
		var want bytes.Buffer
		if err := json.Indent(&want, compact, "", "  "); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ { // computed, then cached
			status, body, hdr := get(t, h, http.MethodGet, "/v1/skills?indent=true&"+q)
			if status != 200 || hdr.Get("Content-Type") != "application/json" || !bytes.Equal(body, want.Bytes()) {
				t.Fatalf("%s indented: %d %q\n%s", q, status, hdr.Get("Content-Type"), body)
			}
		}
	}
	status, body, _ := get(t, h, http.MethodGet, "/v1/skills?indent=true&match=nope")
	if status != 404 || bytes.Contains(body, []byte("\n  ")) {
		t.Fatalf("an error indented: %d %s", status, body)
	}
}
