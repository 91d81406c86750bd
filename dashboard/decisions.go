package dashboard

import (
	"net/http"
	"sort"

	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/status"
)

// DecisionsShown is how many decisions the decisions page lists.
const DecisionsShown = 200

type decisionsPage struct {
	base
	Decisions []decisionRow
	Notices   []status.NoticeRow
}

func (d *Dashboard) decisions(r *http.Request) (any, error) {
	p := &decisionsPage{base: d.base(r, "Decisions and notices")}
	p.Nav = "decisions"
	ds, err := query.ListDecisions(d.o.DB, "", DecisionsShown)
	if err != nil {
		return nil, err
	}
	seqOf := map[string]int{}
	keys := map[string]bool{}
	for _, dd := range ds.Decisions {
		keys[dd.SkillKey] = true
	}
	for k := range keys {
		vs, err := query.ListVersions(d.o.DB, k)
		if err != nil {
			continue // forgotten since: shown by hash
		}
		for _, v := range vs.Versions {
			seqOf[v.Hash] = v.Version
		}
	}
	p.Decisions = decisionRows(ds.Decisions, seqOf)
	p.Notices = status.PendingNotices(d.o.Home)
	sort.SliceStable(p.Notices, func(a, b int) bool { return p.Notices[a].Time.After(p.Notices[b].Time) })
	return p, nil
}
