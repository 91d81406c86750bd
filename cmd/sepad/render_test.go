package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/render"
)

func fp(f float64) *float64 { return &f }

func TestGate(t *testing.T) {
	row := func(grade string, agg float64) *query.GradeRow {
		return &query.GradeRow{Grade: grade, Aggregate: fp(agg), Current: true}
	}
	ungraded := &query.GradeRow{Aggregate: fp(10), Current: true}
	for _, c := range []struct {
		gate  string
		row   *query.GradeRow
		below bool
	}{
		{"B", row("C", 69.99), true},
		{"B", row("B", 70), false},
		{"b", row("A+", 95), false},
		{"A+", row("A", 89.99), true},
		{"F", row("F", 3), false},
		{"70", row("C", 69.99), true},
		{"70", row("B", 70), false},
		{"0", row("F", 0), false},
		{"100", row("A+", 99.9), true},
		{"B", ungraded, false},
		{"100", ungraded, false},
	} {
		g, err := parseGate(c.gate)
		if err != nil {
			t.Fatalf("%s: %v", c.gate, err)
		}
		if got := g.below(c.row); got != c.below {
			t.Errorf("gate %s, row %s %v: below = %v", c.gate, c.row.Grade, *c.row.Aggregate, got)
		}
	}
	for _, bad := range []string{"E", "101", "-1", "B-", "seventy"} {
		if _, err := parseGate(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if g, err := parseGate(""); g != nil || err != nil {
		t.Errorf("no gate: %v %v", g, err)
	}
	rows := []query.GradeRow{*row("D", 55), {Skill: "old", Grade: "F", Aggregate: fp(1)}, *ungraded}
	g, _ := parseGate("C")
	err := checkGate(g, &query.Grades{Grades: rows}, false)
	if ee, ok := err.(*exitError); !ok || ee.code != exitFail {
		t.Fatalf("gate failure: %v", err)
	}
	// A non-current version is not judged: here nothing graded is left.
	if ee, ok := checkGate(g, &query.Grades{Grades: rows[1:]}, false).(*exitError); !ok || ee.code != exitNothingToGate {
		t.Errorf("a non-current version was judged: %v", ee)
	}
}

// TestGradeTableRow: the rows `sepad grades` decodes for its table are a
// part of query.GradeRow: every field has the same JSON name and type,
// and the table printed from them equals the table printed from whole
// rows in which every field is set (so a field the table starts to show
// and gradeTableRow lacks fails here).
func TestGradeTableRow(t *testing.T) {
	full := reflect.TypeFor[query.GradeRow]()
	slim := reflect.TypeFor[gradeTableRow]()
	for i := 0; i < slim.NumField(); i++ {
		f := slim.Field(i)
		g, ok := full.FieldByName(f.Name)
		if !ok || g.Type != f.Type || g.Tag.Get("json") != f.Tag.Get("json") {
			t.Errorf("gradeTableRow.%s (%s %q) is not query.GradeRow's", f.Name, f.Type, f.Tag.Get("json"))
		}
	}
	doc := query.Grades{RubricVersion: "1.2.0", MinSamples: 3, Grades: []query.GradeRow{filledRow(t, 1), filledRow(t, 2),
		{Skill: "review", Project: "/q/review", Version: 1, Hash: "unknown", Status: "ungraded"}}}
	doc.Grades[1].Project = "/elsewhere/shop"
	body, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeGradeTable(body)
	if err != nil {
		t.Fatal(err)
	}
	for _, all := range []bool{false, true} {
		var a, b bytes.Buffer
		render.Grades(&a, &doc, all)
		render.Grades(&b, got, all)
		if a.String() != b.String() {
			t.Errorf("all=%v: the table from the table rows:\n%s\nfrom whole rows:\n%s", all, b.String(), a.String())
		}
	}
	if _, err := decodeGradeTable([]byte(`{"grades":[{"skill":1}]}`)); err == nil || !strings.Contains(err.Error(), "malformed answer") {
		t.Errorf("a malformed answer: %v", err)
	}
}

// filledRow is a grade row with every field set to a value that is not
// its zero, varied by k.
func filledRow(t *testing.T, k int) query.GradeRow {
	var r query.GradeRow
	fill(t, reflect.ValueOf(&r).Elem(), k, "row")
	return r
}

func fill(t *testing.T, v reflect.Value, k int, path string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("%s-%d", path, k))
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(3 + k))
	case reflect.Float64:
		v.SetFloat(0.25 * float64(k+1))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(t, v.Elem(), k, path)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 11, 20+k, 9, 0, 0, 0, time.UTC)))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(t, v.Field(i), k, path+"."+v.Type().Field(i).Name)
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(t, v.Index(0), k, path+"[0]")
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		key, val := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(t, key, k, path+"{key}")
		fill(t, val, k, path+"{}")
		m.SetMapIndex(key, val)
		v.Set(m)
	default:
		t.Fatalf("%s: cannot fill a %s", path, v.Type())
	}
}
