package settings

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestInstallDocListsEvents: docs/install.md names every event install
// writes, and counts them right (issue 36 item 17; a walk found "12
// events" where install writes 16).
func TestInstallDocListsEvents(t *testing.T) {
	b, err := os.ReadFile("../../docs/install.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(string(b)), " ")
	i := strings.Index(doc, "the events sepad reads:")
	if i < 0 {
		t.Fatal(`docs/install.md has no "the events sepad reads:"`)
	}
	m := regexp.MustCompile(`\((\d+) events\)`).FindStringSubmatch(doc[i:])
	if m == nil {
		t.Fatal("docs/install.md does not count the events")
	}
	list := doc[i : i+strings.Index(doc[i:], m[0])]
	for _, e := range Events {
		if !strings.Contains(list, "`"+e+"`") {
			t.Errorf("docs/install.md's list lacks %s", e)
		}
	}
	if n, _ := strconv.Atoi(m[1]); n != len(Events) {
		t.Errorf("docs/install.md says %d events, install writes %d", n, len(Events))
	}
}
