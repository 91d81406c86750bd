package main

import (
	"testing"

	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/render"
)

// The over-claim words of decisions and the OVER-CLAIMS column of
// grades --all-versions.
func TestOverClaimWords(t *testing.T) {
	got := overClaimWords(mutation.Sample{Seq: 3, N: 10}, mutation.Sample{Seq: 4, N: 12, OverClaims: 3})
	if got != "v4 over-claims in 3 of 12 runs" {
		t.Errorf("decision words %q", got)
	}
	if w := overClaimWords(mutation.Sample{Seq: 1, N: 5}); w != "" {
		t.Errorf("no over-claim: %q", w)
	}
	if s := render.OverClaims(&query.GradeRow{N: 12, OverClaims: 3}); s != "3/12 (25%)" {
		t.Errorf("column %q", s)
	}
	if s := render.OverClaims(&query.GradeRow{N: 12}); s != "-" {
		t.Errorf("column without over-claims %q", s)
	}
}
