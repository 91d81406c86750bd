package query

import (
	"fmt"
	"reflect"
	"testing"
)

func trendScores(pts []TrendPoint) string {
	s := ""
	for _, p := range pts {
		if p.Score == nil {
			s += fmt.Sprintf("v%d:- ", p.Version)
		} else {
			s += fmt.Sprintf("v%d:%.0f ", p.Version, *p.Score)
		}
	}
	return s
}

// TestOverview: the grades are ListGrades', and each skill's trend holds
// its newest runs across versions, oldest first, kept until new runs
// come.
func TestOverview(t *testing.T) {
	db := openDB(t, fixture()...)
	g, trends, err := Overview(db, 5)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ListGrades(db, GradesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, want) {
		t.Fatalf("overview grades differ from ListGrades:\n%+v\n%+v", g, want)
	}
	for key, w := range map[string]string{
		deployPath:       "v1:84 v2:60 v2:62 v2:55 v3:90 ",
		blog + "#deploy": "v1:91 ",
		shop + "#review": "v1:75 v1:- v1:77 v1:79 ",
	} {
		if got := trendScores(trends[key]); got != w {
			t.Errorf("%s: trend %q, want %q (keys %v)", key, got, w, len(trends))
		}
	}
	commit(t, db, ex{id: "e999" + "00000000", skill: "deploy", project: shop, path: deployPath, version: "cccccccccccc", score: 30, at: 0})
	_, trends, err = Overview(db, 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := trendScores(trends[deployPath]); got != "v2:60 v2:62 v2:55 v3:90 v3:30 " {
		t.Errorf("after a new run: %q", got)
	}
}
