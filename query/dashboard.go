package query

import (
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

// The view the web dashboard needs beyond the CLI's (package dashboard):
// the recent scores of many skills at once. It is not an API endpoint.

// TrendPoint is one execution in a skill's recent trend.
type TrendPoint struct {
	Score   *float64 `json:"score"`
	Version int      `json:"version"`
}

// trendCache keeps each skill's trend with the executions it was drawn
// from (IDs and commit sequence numbers, read from the index, which is
// cheap): a trend is decoded again only when those changed, so the
// overview of a thousand skills after a write decodes only the new runs.
var trendCache = struct {
	sync.Mutex
	db *store.DB
	m  map[string]trendEntry
}{}

type trendEntry struct {
	ids  []string
	seqs []uint64
	pts  []TrendPoint
}

// OverviewRow is one skill of the dashboard's overview: the row of its
// current version (as ListGrades) and its trend.
type OverviewRow struct {
	GradeRow
	// Trend is the skill's newest runs' scores, oldest first.
	Trend []TrendPoint
	// Mark changes whenever the row or its trend may have: a caller can
	// keep what it drew from them until it does.
	Mark uint64
}

// overviewMemo keeps each skill's overview row with the store's change
// mark it was read at (store.DB.SkillChanges): after a write, Overview
// reads again only the skills that write touched, so the overview of a
// thousand skills costs about what one skill does (BENCHMARKS.md,
// BenchmarkDashboardBigStore).
var overviewMemo = struct {
	sync.Mutex
	db   *store.DB
	n    int
	mark uint64
	rows map[string]OverviewRow
}{}

// Overview returns one row per skill, as ListGrades does (the same rows,
// in the same order), each with its newest n runs' trend: the
// dashboard's overview. The rows share their pointers and trends with
// later calls: callers must not modify them.
func Overview(db *store.DB, n int) ([]OverviewRow, error) {
	if n <= 0 {
		n = 20
	}
	m := &overviewMemo
	m.Lock()
	defer m.Unlock()
	if m.db != db || m.n != n {
		m.db, m.n, m.mark, m.rows = db, n, 0, nil
	}
	mark, keys, all := db.SkillChanges(m.mark)
	var ss []record.Skill
	if all {
		var err error
		if ss, err = db.SkillList(); err != nil {
			return nil, err
		}
		m.rows = make(map[string]OverviewRow, len(ss))
	} else {
		for _, k := range keys {
			ss = append(ss, record.Skill{Key: k})
			delete(m.rows, k) // read again below, unless forgotten
		}
	}
	if len(ss) > 0 {
		full, err := loadSkills(db, ss)
		if err != nil {
			m.mark = 0 // what was deleted above is missing: read all next time
			return nil, err
		}
		trends, err := trendsOf(db, full, n)
		if err != nil {
			m.mark = 0
			return nil, err
		}
		for i := range full {
			if c := currentRow(versionRows(&full[i])); c != nil {
				m.rows[c.SkillKey] = OverviewRow{GradeRow: *c, Trend: trends[c.SkillKey], Mark: mark}
			}
		}
	}
	m.mark = mark
	out := make([]OverviewRow, 0, len(m.rows))
	for _, r := range m.rows {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		if a.Skill != b.Skill {
			return a.Skill < b.Skill
		}
		if a.Project != b.Project {
			return a.Project < b.Project
		}
		return a.SkillKey < b.SkillKey
	})
	return out, nil
}

func trendsOf(db *store.DB, ss []record.Skill, n int) (map[string][]TrendPoint, error) {
	trendCache.Lock()
	if trendCache.db != db || trendCache.m == nil {
		trendCache.db, trendCache.m = db, map[string]trendEntry{}
	}
	trendCache.Unlock()
	out := make(map[string][]TrendPoint, len(ss))
	for i := range ss {
		sk := &ss[i]
		vs := append([]record.Version(nil), sk.Versions...)
		sort.Slice(vs, func(a, b int) bool { return vs[a].Seq > vs[b].Seq })
		var ids []string
		var sq []uint64
		version := map[string]int{} // the version (number) of each run
		for _, v := range vs {
			if len(ids) >= n {
				break
			}
			if err := db.WalkExecutionIDs(sk.Key, v.Hash, n-len(ids), func(id string, s uint64) bool {
				ids, sq = append(ids, id), append(sq, s)
				version[id] = v.Seq
				return len(ids) < n
			}); err != nil {
				return nil, fmt.Errorf("trend of %s: %w", sk.Key, err)
			}
		}
		trendCache.Lock()
		e, ok := trendCache.m[sk.Key]
		trendCache.Unlock()
		if ok && slices.Equal(e.ids, ids) && slices.Equal(e.seqs, sq) {
			out[sk.Key] = e.pts
			continue
		}
		// Only the scores: the trend shows nothing else of a run.
		scores, err := db.ExecutionScores(ids)
		if err != nil {
			return nil, fmt.Errorf("trend of %s: %w", sk.Key, err)
		}
		pts := make([]TrendPoint, 0, len(scores))
		for j := len(scores) - 1; j >= 0; j-- { // oldest first
			p := TrendPoint{Version: version[scores[j].ID]}
			if scores[j].Scored {
				p.Score = ptr(scores[j].Score)
			}
			pts = append(pts, p)
		}
		trendCache.Lock()
		if len(trendCache.m) >= maxCachedRows {
			clear(trendCache.m)
		}
		trendCache.m[sk.Key] = trendEntry{ids: ids, seqs: sq, pts: pts}
		trendCache.Unlock()
		out[sk.Key] = pts
	}
	return out, nil
}
