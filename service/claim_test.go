package service

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/sepad/sepad/promptfile"
)

// TestReleaseUserClaim: the daemon's claim on the Claude Code directory
// goes with this home's service, said first on a dry run; another home's
// claim stays, unsaid.
func TestReleaseUserClaim(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	claim := filepath.Join(dir, promptfile.ClaimName)
	if err := os.WriteFile(claim, []byte(filepath.Join(t.TempDir(), "other")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := ReleaseUserClaim(&b, dir, home, false); err != nil || b.Len() != 0 {
		t.Fatalf("another home's claim: %v %q", err, b.String())
	}
	if _, err := os.Stat(claim); err != nil {
		t.Fatalf("another home's claim removed: %v", err)
	}
	os.WriteFile(claim, []byte(home+"\n"), 0o600)
	if err := ReleaseUserClaim(&b, dir, home, true); err != nil || b.String() != "would remove "+claim+" (it named this sepad home as the one that writes there)\n" {
		t.Fatalf("dry run: %v %q", err, b.String())
	}
	if _, err := os.Stat(claim); err != nil {
		t.Fatalf("a dry run removed the claim: %v", err)
	}
	b.Reset()
	if err := ReleaseUserClaim(&b, dir, home, false); err != nil || b.String() != "removed "+claim+" (it named this sepad home as the one that writes there)\n" {
		t.Fatalf("release: %v %q", err, b.String())
	}
	if _, err := os.Stat(claim); !os.IsNotExist(err) {
		t.Fatalf("the claim stays: %v", err)
	}
}
