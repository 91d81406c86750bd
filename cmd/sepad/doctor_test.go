package main

import (
	"regexp"
	"testing"
)

// doctor's last line counts the failed checks in words: "1 check
// failed", "3 checks failed", never "check(s)".
func TestDoctorCountsFailures(t *testing.T) {
	code, _, errOut := runCmd(t, "doctor", "--project", t.TempDir())
	if code != exitFail {
		t.Fatalf("doctor with no hook and no daemon: exit %d, want %d\n%s", code, exitFail, errOut)
	}
	if !regexp.MustCompile(`(?m)^sepad doctor: (1 check|[02-9]\d* checks|1\d+ checks) failed$`).MatchString(errOut) {
		t.Errorf("doctor's count of failed checks: %q", errOut)
	}
}
