package importer

import (
	"reflect"
	"testing"
)

// TestReportAdd: the pipeline's counts replace the read side's, and its
// skips follow the files'.
func TestReportAdd(t *testing.T) {
	r := Report{Read: 14, Duplicates: 1, Events: map[string]int{"PreToolUse": 14}, Skipped: []Skip{{Reason: "truncated array"}}}
	r.Add(&Report{AlreadyStored: 2, SpoolSessions: 3, Imported: 9, Executions: 4, UnknownOutcome: 5, Collisions: 1, Read: 99, Skipped: []Skip{{Reason: "an ID in use"}}})
	want := Report{Read: 14, Duplicates: 1, Events: map[string]int{"PreToolUse": 14}, AlreadyStored: 2, SpoolSessions: 3, Imported: 9, Executions: 4, UnknownOutcome: 5, Collisions: 1,
		Skipped: []Skip{{Reason: "truncated array"}, {Reason: "an ID in use"}}}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("got  %+v\nwant %+v", r, want)
	}
}
