//go:build linux

package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sepad/sepad/internal/tmpfs"
	"github.com/sepad/sepad/record"
)

// Open on a full file system (issue 33 item 14): a new database cannot be
// created, and says so with ErrNoSpace, leaving no half-written file that
// would be refused once there is room; a database that exists opens
// without writing and serves what it holds.
func TestOpenOnAFullDisk(t *testing.T) {
	dir := tmpfs.Mount(t, "1m")
	existing := filepath.Join(dir, "old", "sepa.db")
	db, err := Open(existing, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := Batch{Executions: []record.Scored{scored("e00000000001", "deploy", "aaaaaaaaaaaa", 80, time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC))},
		EventCounts: map[string]int64{"Stop": 1}}
	if err := db.Commit(&b); err != nil {
		t.Fatal(err)
	}
	db.Close()
	filler := tmpfs.Fill(t, dir)

	fresh := filepath.Join(dir, "new", "sepa.db")
	if _, err := Open(fresh, Options{}); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("a new database on a full disk: %v, want ErrNoSpace", err)
	}
	if fi, err := os.Stat(fresh); err == nil && fi.Size() > 0 {
		t.Fatalf("a half-written database of %d bytes left", fi.Size())
	}
	db, err = Open(existing, Options{})
	if err != nil {
		t.Fatalf("an existing database on a full disk: %v", err)
	}
	st, err := db.Stats()
	if err != nil || st.Executions != 1 || st.Events["Stop"] != 1 {
		t.Fatalf("what it holds: %+v %v", st, err)
	}
	db.Close()

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	db, err = Open(fresh, Options{})
	if err != nil {
		t.Fatalf("once there is room: %v", err)
	}
	db.Close()
}
