package archtest

import (
	"bufio"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/sepad/sepad"

// thirdParty maps the names docs/architecture.md uses for outside modules
// to their import path prefixes.
var thirdParty = map[string]string{
	"goldmark":                 "github.com/yuin/goldmark",
	"yaml/v3":                  "go.yaml.in/yaml/v3",
	"fsnotify":                 "github.com/fsnotify/fsnotify",
	"bbolt":                    "go.etcd.io/bbolt",
	"prometheus/client_golang": "github.com/prometheus/client_golang",
	"x/text":                   "golang.org/x/text",
	"pgx":                      "github.com/jackc/pgx/v5",
	"OpenTelemetry":            "go.opentelemetry.io/otel",
}

var (
	ticked = regexp.MustCompile("`([^`]+)`")
	remark = regexp.MustCompile(`\([^)]*\)`)
)

// rule is one row of the table: packages and what they may import.
type rule struct {
	pkgs  []string
	allow []string // module-relative packages and thirdParty names
	any   bool     // "everything"
}

func readRules(t *testing.T) []rule {
	t.Helper()
	f, err := os.Open("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rules []rule
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == "## Packages and what they may import"
			continue
		}
		if !in || !strings.HasPrefix(line, "| `") {
			continue
		}
		cols := strings.Split(line, "|")
		if len(cols) < 5 {
			t.Fatalf("architecture.md: row %q has %d columns", line, len(cols))
		}
		var r rule
		for _, m := range ticked.FindAllStringSubmatch(cols[1], -1) {
			r.pkgs = append(r.pkgs, m[1])
		}
		may := remark.ReplaceAllString(cols[3], "") // remarks name no import
		r.any = strings.Contains(may, "everything")
		for _, m := range ticked.FindAllStringSubmatch(may, -1) {
			r.allow = append(r.allow, m[1])
		}
		for name := range thirdParty {
			if slices.Contains(words(may), name) {
				r.allow = append(r.allow, name)
			}
		}
		rules = append(rules, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rules) < 10 {
		t.Fatalf("architecture.md: found %d rows in the package table", len(rules))
	}
	return rules
}

// imports returns the non-standard imports of the package in dir,
// test files excluded, as module-relative names or thirdParty names.
func imports(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, n), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, is := range f.Imports {
			p, _ := strconv.Unquote(is.Path.Value)
			first, _, _ := strings.Cut(p, "/")
			switch {
			case strings.HasPrefix(p, module+"/"):
				set[strings.TrimPrefix(p, module+"/")] = true
			case strings.Contains(first, "."):
				name := ""
				for k, prefix := range thirdParty {
					if p == prefix || strings.HasPrefix(p, prefix+"/") {
						name = k
					}
				}
				if name == "" {
					name = p // unknown: reported as not allowed
				}
				set[name] = true
			}
		}
	}
	var out []string
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestImportsMatchArchitectureDoc(t *testing.T) {
	rules := readRules(t)
	covered := map[string]bool{}
	for _, r := range rules {
		used := map[string]bool{}
		for _, pkg := range r.pkgs {
			covered[pkg] = true
			for _, imp := range imports(t, filepath.Join("../..", pkg)) {
				used[imp] = true
				if !r.any && !slices.Contains(r.allow, imp) {
					t.Errorf("%s imports %s; docs/architecture.md allows %v", pkg, imp, r.allow)
				}
			}
		}
		for _, a := range r.allow {
			if !used[a] {
				t.Errorf("docs/architecture.md lets %v import %s, which none of them does: keep the table exact", r.pkgs, a)
			}
		}
	}
	// Every package of the module has a row.
	err := filepath.WalkDir("../..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != "../.." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel("../..", filepath.Dir(path))
		if rel != "internal/archtest" && !covered[filepath.ToSlash(rel)] {
			covered[filepath.ToSlash(rel)] = true
			t.Errorf("package %s has no row in docs/architecture.md's package table", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOnlyStoreImportsBbolt states the design's rule on its own, so that a
// change to the table cannot quietly relax it.
func TestOnlyStoreImportsBbolt(t *testing.T) {
	for _, r := range readRules(t) {
		for _, pkg := range r.pkgs {
			if pkg != "store" && slices.Contains(imports(t, filepath.Join("../..", pkg)), "bbolt") {
				t.Errorf("%s imports bbolt; only store may", pkg)
			}
		}
	}
}

// TestOnlyTeamImportsPgx: one package speaks to PostgreSQL.
func TestOnlyTeamImportsPgx(t *testing.T) {
	for _, r := range readRules(t) {
		for _, pkg := range r.pkgs {
			if pkg != "team" && slices.Contains(imports(t, filepath.Join("../..", pkg)), "pgx") {
				t.Errorf("%s imports pgx; only team may", pkg)
			}
		}
	}
}

// words splits a cell into its comma- or space-separated words.
func words(cell string) []string {
	return strings.FieldsFunc(cell, func(r rune) bool { return r == ',' || r == ' ' || r == ';' })
}
