package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestSessionsAreGenerated: the sessions the demo replays are exactly what
// demogen writes with its default seed, so they can be regenerated
// (go run ./internal/demogen) and nobody edited them by hand.
func TestSessionsAreGenerated(t *testing.T) {
	dir := t.TempDir()
	const seed = 7 // main's default
	r := rand.New(rand.NewPCG(seed, seed))
	for i, ph := range phases {
		if err := write(filepath.Join(dir, ph.file), ph, r, i); err != nil {
			t.Fatal(err)
		}
	}
	for _, ph := range phases {
		got, err := os.ReadFile(filepath.Join(dir, ph.file))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("..", "demodata", "sessions", ph.file))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from internal/demodata/sessions: regenerate with go run ./internal/demogen", ph.file)
		}
	}
}
