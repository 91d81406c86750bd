package store

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/record"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// seed creates a database at path holding one execution, and closes it.
func seed(t *testing.T, path string) {
	t.Helper()
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := Batch{Executions: []record.Scored{scored("e00000000001", "x", "aaaaaaaaaaaa", 75, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))},
		Offsets: []record.Offset{{File: "/s", Offset: 42}}}
	if err := db.Commit(&b); err != nil {
		t.Fatal(err)
	}
	if err := CheckInvariants(db); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// Read-only opens share the file with each other (the CLI while the
// daemon is down), read everything, write nothing, and keep a writer out
// while they hold it.
func TestReadOnlyWhileNobodyHoldsIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sepa.db")
	seed(t, path)
	r1, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r1.Close()
	r2, err := Open(path, Options{ReadOnly: true, LockTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatalf("second read-only open: %v", err)
	}
	defer r2.Close()
	for _, r := range []*DB{r1, r2} {
		xs, err := r.Executions(record.Filter{})
		offs, _ := r.Offsets()
		st, _ := r.Stats()
		if err != nil || len(xs) != 1 || xs[0].Result.Score != 75 || len(offs) != 1 || st.Executions != 1 {
			t.Fatalf("read-only reads: %v %+v %+v %+v", err, xs, offs, st)
		}
		if err := CheckInvariants(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := r1.Commit(&Batch{Offsets: []record.Offset{{File: "/s", Offset: 43}}}); !errors.Is(err, bolterrors.ErrDatabaseReadOnly) {
		t.Errorf("commit on a read-only database: %v", err)
	}
	if _, err := r1.PutVersion(record.Skill{Key: "/k"}, record.Version{Hash: "h"}); !errors.Is(err, bolterrors.ErrDatabaseReadOnly) {
		t.Errorf("PutVersion on a read-only database: %v", err)
	}
	if err := r1.PutSkillState("/k", []byte("{}")); !errors.Is(err, bolterrors.ErrDatabaseReadOnly) {
		t.Errorf("PutSkillState on a read-only database: %v", err)
	}
	// A reader holds a shared lock: the daemon cannot start meanwhile.
	if _, err := Open(path, Options{LockTimeout: 100 * time.Millisecond}); !errors.Is(err, ErrLocked) {
		t.Fatalf("read-write open while readers hold the file: %v, want ErrLocked", err)
	}
	r1.Close()
	r2.Close()
	w, err := Open(path, Options{LockTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatalf("read-write open after the readers closed: %v", err)
	}
	defer w.Close()
	if offs, _ := w.Offsets(); len(offs) != 1 || offs[0].Offset != 42 {
		t.Fatalf("a read-only commit got through: %+v", offs)
	}
}

// Opening a missing file read-only says so and creates nothing.
func TestReadOnlyMissingFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "home")
	path := filepath.Join(dir, "sepa.db")
	_, err := Open(path, Options{ReadOnly: true})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v, want a not-exist error naming %s", err, path)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("read-only open created %s: %v", dir, err)
	}
}

// A bbolt file without sepad's buckets (created but never initialised by
// a writer) reads as empty, without errors.
func TestReadOnlyUninitialisedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sepa.db")
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	db, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	xs, err1 := db.Executions(record.Filter{})
	skills, err2 := db.Skills()
	st, err3 := db.Stats()
	open, err4 := db.OpenStates()
	if err := errors.Join(err1, err2, err3, err4); err != nil || len(xs)+len(skills)+len(open) != 0 || st.Executions != 0 {
		t.Fatalf("empty file: %v %d %d %d %+v", err, len(xs), len(skills), len(open), st)
	}
	if err := CheckInvariants(db); err != nil {
		t.Fatal(err)
	}
}

// Within one process too, a second open waits for the lock only as long as
// its timeout, and the error tells the user what to do.
func TestErrLockedMessage(t *testing.T) {
	_, path := openTest(t, Options{})
	_, err := Open(path, Options{LockTimeout: 50 * time.Millisecond})
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("err = %v, want ErrLocked", err)
	}
	for _, want := range []string{path, "daemon is probably running", "socket", "stop it"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
}

// A newer schema is refused with a message that says what to do, and the
// refusal writes nothing to the file.
func TestSchemaNewerMessageAndUntouched(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sepa.db")
	seed(t, path)
	setSchema(t, path, "7")
	before := fileSum(t, path)
	_, err := Open(path, Options{})
	if !errors.Is(err, ErrSchemaNewer) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"v7", "v1", "upgrade sepad", path} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	if fileSum(t, path) != before {
		t.Fatal("a refused open changed the file")
	}
}

// A failing migration aborts the open and leaves the old schema in place;
// a working one upgrades the file in the same transaction as the version
// number, keeping the data.
func TestMigrationFailureRollsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sepa.db")
	seed(t, path)
	setSchema(t, path, "0")
	boom := errors.New("boom")
	migrations[0] = func(tx *bolt.Tx) error {
		if err := tx.Bucket(bMeta).Put([]byte("half_done"), []byte("1")); err != nil {
			return err
		}
		return boom
	}
	defer delete(migrations, 0)
	_, err := Open(path, Options{})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "migrate schema v0 to v1") {
		t.Fatalf("err = %v", err)
	}
	if v, half := rawMeta(t, path, kSchema), rawMeta(t, path, []byte("half_done")); v != "0" || half != "" {
		t.Fatalf("after a failed migration: schema %q, half_done %q", v, half)
	}
	migrations[0] = func(tx *bolt.Tx) error { return tx.Bucket(bMeta).Put([]byte("migrated"), []byte("yes")) }
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	xs, _ := db.Executions(record.Filter{})
	if err := CheckInvariants(db); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if v, m := rawMeta(t, path, kSchema), rawMeta(t, path, []byte("migrated")); v != "1" || m != "yes" || len(xs) != 1 {
		t.Fatalf("after migration: schema %q, migrated %q, %d executions", v, m, len(xs))
	}
}

// A daemon killed with SIGKILL leaves no stale lock, and what it committed
// is there, consistent, for the next open.
func TestLockReleasedWhenHolderIsKilled(t *testing.T) {
	if p := os.Getenv("SEPAD_STORE_KILL_DB"); p != "" {
		db, err := Open(p, Options{})
		if err != nil {
			os.Exit(3)
		}
		b := Batch{Executions: []record.Scored{scored("k00000000001", "x", "aaaaaaaaaaaa", 66, time.Now())}, Offsets: []record.Offset{{File: "/s", Offset: 7}}}
		if err := db.Commit(&b); err != nil {
			os.Exit(4)
		}
		os.WriteFile(p+".held", nil, 0o600)
		time.Sleep(30 * time.Second) // killed long before
		os.Exit(5)
	}
	path := filepath.Join(t.TempDir(), "sepa.db")
	cmd := exec.Command(os.Args[0], "-test.run", "^TestLockReleasedWhenHolderIsKilled$")
	cmd.Env = append(os.Environ(), "SEPAD_STORE_KILL_DB="+path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	waitFor(t, path+".held", exited)
	if _, err := Open(path, Options{LockTimeout: 50 * time.Millisecond}); !errors.Is(err, ErrLocked) {
		t.Fatalf("open while the holder runs: %v", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := <-exited; err == nil {
		t.Fatal("the holder exited cleanly instead of being killed")
	}
	db, err := Open(path, Options{LockTimeout: time.Second})
	if err != nil {
		t.Fatalf("open after the holder was killed: %v", err)
	}
	defer db.Close()
	x, err := db.Execution("k00000000001")
	offs, _ := db.Offsets()
	if err != nil || x.Result.Score != 66 || len(offs) != 1 || offs[0].Offset != 7 {
		t.Fatalf("committed data after kill: %+v %v %+v", x, err, offs)
	}
	if err := CheckInvariants(db); err != nil {
		t.Fatal(err)
	}
}

// waitFor waits until the subprocess creates file, failing if it exits
// first or takes more than 10 s (a hang guard, not a timing assertion).
func waitFor(t *testing.T, file string, exited <-chan error) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(file); err == nil {
			return
		}
		select {
		case err := <-exited:
			t.Fatalf("subprocess exited before creating %s: %v", file, err)
		case <-deadline:
			t.Fatalf("subprocess never created %s", file)
		case <-tick.C:
		}
	}
}

func setSchema(t *testing.T, path, v string) {
	t.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Update(func(tx *bolt.Tx) error { return tx.Bucket(bMeta).Put(kSchema, []byte(v)) }); err != nil {
		t.Fatal(err)
	}
}

func rawMeta(t *testing.T, path string, k []byte) string {
	t.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var v string
	b.View(func(tx *bolt.Tx) error {
		v = string(tx.Bucket(bMeta).Get(k))
		return nil
	})
	return v
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(data)
}

// A database sepad creates has PageSize pages; a file created with 4 KiB
// pages (every database before PageSize) keeps them: it opens, takes new
// executions and reads them back unchanged.
func TestPageSize(t *testing.T) {
	dir := t.TempDir()
	pageOf := func(db *DB) int { return db.bolt.Info().PageSize }
	fresh := filepath.Join(dir, "new.db")
	seed(t, fresh)
	db, err := Open(fresh, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := pageOf(db); got != PageSize || PageSize != 16<<10 {
		t.Errorf("new database: page size %d, want %d", got, PageSize)
	}
	db.Close()

	old := filepath.Join(dir, "old.db")
	b, err := bolt.Open(old, 0o600, &bolt.Options{PageSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	at := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	for round := range 2 { // the second open finds the file sepad wrote
		db, err := Open(old, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := pageOf(db); got != 4096 {
			t.Errorf("round %d: 4 KiB database opened with page size %d", round, got)
		}
		var batch Batch
		for i := range 200 {
			batch.Executions = append(batch.Executions, scored(fmt.Sprintf("e%02d%09d", round, i), "x", "aaaaaaaaaaaa", 75, at.Add(time.Duration(round*200+i)*time.Second)))
		}
		if err := db.Commit(&batch); err != nil {
			t.Fatal(err)
		}
		if err := CheckInvariants(db); err != nil {
			t.Fatal(err)
		}
		xs, err := db.Executions(record.Filter{})
		if err != nil || len(xs) != 200*(round+1) {
			t.Fatalf("round %d: %d executions, %v", round, len(xs), err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
