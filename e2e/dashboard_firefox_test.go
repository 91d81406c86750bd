package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/query"
)

// TestDashboardFirefox runs the dashboard of `sepad demo --keep` in
// Firefox (headless, through WebDriver BiDi): the refusal without the
// login, the login link, the overview's skills with the API's grades,
// deploy's three versions and its rejection explained, and a new
// execution appearing on the open overview without a reload, as
// TestDashboard does in chromium.
func TestDashboardFirefox(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: not in -short")
	}
	ff := firefox(t)
	shots := artifacts(t, "dashboard-firefox")
	d := startDemoServer(t)

	// Without the login: the refusal says how to get in, and no table.
	ff.navigate(d.base + "/dashboard/")
	var denied struct {
		Message string `json:"message"`
		Tables  int    `json:"tables"`
	}
	ff.eval(`({message: (document.querySelector("#message") || {}).textContent || "", tables: document.querySelectorAll("table").length})`, &denied)
	if !strings.Contains(denied.Message, "sepad dashboard") || denied.Tables != 0 {
		t.Fatalf("the page without the login: %+v", denied)
	}

	// The login link sets the cookie and leads to the overview.
	var grades query.Grades
	d.api(t, "/v1/skills", &grades)
	ff.navigate(d.url)
	ff.waitFor("the overview", `document.querySelector("#skills") !== null`, time.Minute)
	var root string
	ff.eval(`location.href`, &root)
	if !sessionRoot.MatchString(strings.TrimPrefix(root, d.base)) {
		t.Fatalf("the login led to %s, not a session's overview", root)
	}
	var rows []map[string]string
	ff.eval(overviewRowsJS, &rows)
	ff.screenshot(shots, "overview")
	hrefs := checkOverview(t, rows, grades)

	// deploy's page, by its link: three versions, the rejection explained.
	rejection := demoRejection(t, d)
	ff.eval(`(document.querySelector('#skills tr[data-skill="deploy"] a').click(), true)`, new(bool))
	ff.waitFor("deploy's page", `document.querySelector("#versions") !== null && document.readyState === "complete"`, time.Minute)
	var loc string
	ff.eval(`location.href`, &loc)
	if loc != root+hrefs["deploy"] {
		t.Errorf("deploy's link led to %s, want %s", loc, root+hrefs["deploy"])
	}
	var versions int
	var page string
	ff.eval(`document.querySelectorAll("#versions thead th").length - 1`, &versions)
	ff.eval(`document.querySelector("#live").textContent`, &page)
	ff.screenshot(shots, "skill-deploy")
	if versions != 3 {
		t.Errorf("deploy's page shows %d versions, want 3", versions)
	}
	if !strings.Contains(page, "rejected") || !strings.Contains(strings.Join(strings.Fields(page), " "), strings.Join(strings.Fields(rejection), " ")) {
		t.Errorf("deploy's page lacks the rejection's explanation %q", rejection)
	}

	// Live: a new deploy run appears on the open overview without a reload.
	ff.navigate(root)
	ff.waitFor("the overview again", `document.querySelector("#skills") !== null`, time.Minute)
	var before int
	ff.eval(`(window.notReloaded = true, +document.querySelector('#skills tr[data-skill="deploy"] td.runs').textContent)`, &before)
	committed := addDeployRun(t, d, grades, before)
	ff.waitFor("the new run on the open page", fmt.Sprintf(`+document.querySelector('#skills tr[data-skill="deploy"] td.runs').textContent > %d`, before), time.Minute)
	t.Logf("a new execution reached the open page in Firefox %v after the daemon recorded it (the issue asks for 2 s)", time.Since(committed).Round(time.Millisecond))
	var after struct {
		Runs   int  `json:"runs"`
		Stayed bool `json:"stayed"`
	}
	ff.eval(`({runs: +document.querySelector('#skills tr[data-skill="deploy"] td.runs').textContent, stayed: window.notReloaded === true})`, &after)
	if !after.Stayed || after.Runs != before+1 {
		t.Fatalf("after the new run: reloaded %v, runs %d (was %d)", !after.Stayed, after.Runs, before)
	}
	ff.screenshot(shots, "overview-live")
}

// demoRejection is the words of the demo's rejection of a deploy version.
func demoRejection(t *testing.T, d *demoServer) string {
	t.Helper()
	var decisions query.Decisions
	d.api(t, "/v1/decisions?skill=deploy", &decisions)
	for _, dd := range decisions.Decisions {
		p, _ := dd.Payload.(map[string]any)
		if dec, ok := p["decision"].(map[string]any); ok && dec["outcome"] == "reject" {
			if w, _ := p["words"].(string); w != "" {
				return w
			}
		}
	}
	t.Fatalf("the demo made no rejection: %+v", decisions)
	return ""
}
