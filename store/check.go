package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/sepad/sepad/aggregate"
	"github.com/sepad/sepad/record"
)

// CheckInvariants verifies the database: bbolt's own consistency check,
// then sepad's invariants: every execution is in both indexes and every
// index entry names a stored execution; the execution counter equals the
// records; every aggregate equals a recount from the stored executions
// (but those Prune removed executions of, which keep counting them).
// Tests call it after every test that writes.
func CheckInvariants(db *DB) error {
	return db.bolt.View(func(tx *bolt.Tx) error {
		var errs []error
		for err := range tx.Check() {
			errs = append(errs, err)
		}
		if len(errs) > 0 {
			return fmt.Errorf("bbolt check: %w", errors.Join(errs...))
		}
		if tx.Bucket(bMeta) == nil {
			return nil
		}
		ex := tx.Bucket(bExec)
		n := ex.Stats().KeyN
		if got := int(getU64(tx.Bucket(bMeta).Get(kExecCount))); got != n {
			return fmt.Errorf("execution counter %d != %d records", got, n)
		}
		if m := tx.Bucket(bBySeq).Stats().KeyN; m != n {
			return fmt.Errorf("by_seq has %d entries for %d executions", m, n)
		}
		if m := tx.Bucket(bByVersion).Stats().KeyN; m != n {
			return fmt.Errorf("by_version has %d entries for %d executions", m, n)
		}
		// Recount every aggregate from the version index (newest first):
		// the scores through aggregate.Compute, the sums through a Tally.
		o := db.opts.Aggregate
		recount := map[string][]float64{}
		tallies := map[string]*record.Tally{}
		err := tx.Bucket(bByVersion).ForEach(func(k, id []byte) error {
			v := ex.Get(id)
			if v == nil {
				return fmt.Errorf("by_version %q names missing execution %s", k, id)
			}
			var s record.Scored
			if err := decodeExec(v, &s); err != nil {
				return fmt.Errorf("decode execution %s: %w", id, err)
			}
			if !bytes.HasPrefix(k, []byte(s.SkillKey+"\x00"+s.Version+"\x00")) {
				return fmt.Errorf("execution %s indexed under %q, stored as %s@%s", id, k, s.SkillKey, s.Version)
			}
			if tx.Bucket(bVersions).Get(versionKey(s.SkillKey, s.Version)) == nil {
				return fmt.Errorf("execution %s: version %s@%s has no record", id, s.SkillKey, s.Version)
			}
			if s.Result.Scored {
				ak := string(aggKey(s.SkillKey, s.Version, s.Result.RubricVersion))
				recount[ak] = append(recount[ak], s.Result.Score)
				if tallies[ak] == nil {
					tallies[ak] = &record.Tally{}
				}
				tallies[ak].Add(&s, o)
			}
			return nil
		})
		if err != nil {
			return err
		}
		ab := tx.Bucket(bAggregates)
		if m := ab.Stats().KeyN; m != len(recount) {
			// Only an aggregate Prune took executions from may have
			// none left (prune.go).
			err := ab.ForEach(func(k, _ []byte) error {
				if _, ok := recount[string(k)]; !ok && !prunedAggregate(tx, k) {
					return fmt.Errorf("%d aggregates stored, %d versions with scores", m, len(recount))
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		for ak, scores := range recount {
			v := ab.Get([]byte(ak))
			if v == nil {
				return fmt.Errorf("aggregate %q missing", strings.ReplaceAll(ak, "\x00", "|"))
			}
			var st record.Tally
			if err := json.Unmarshal(v, &st); err != nil {
				return err
			}
			if prunedAggregate(tx, []byte(ak)) {
				continue // it still counts the executions Prune removed
			}
			want, _ := aggregate.Compute(scores, o)
			if got := st.State.Aggregate(o); got != want {
				return fmt.Errorf("aggregate %q = %+v, recount %+v", strings.ReplaceAll(ak, "\x00", "|"), got, want)
			}
			r := tallies[ak]
			if r.Calls != st.Calls || r.Failed != st.Failed {
				return fmt.Errorf("aggregate %q calls %d/%d, recount %d/%d", ak, st.Failed, st.Calls, r.Failed, r.Calls)
			}
			if r.Claims != st.Claims || r.OverClaims != st.OverClaims {
				return fmt.Errorf("aggregate %q over-claims %d of %d claims, recount %d of %d", ak, st.OverClaims, st.Claims, r.OverClaims, r.Claims)
			}
			var stored, recounted record.Tokens
			if st.Tokens != nil {
				stored = *st.Tokens
			}
			if r.Tokens != nil {
				recounted = *r.Tokens
			}
			if stored != recounted {
				return fmt.Errorf("aggregate %q tokens %+v, recount %+v", ak, stored, recounted)
			}
			// A store written before the models were counted has fewer
			// (or none): never more than its executions name.
			for _, m := range st.Models {
				i := slices.IndexFunc(r.Models, func(r record.ModelRuns) bool { return r.Model == m.Model })
				if i < 0 || r.Models[i].N < m.N {
					return fmt.Errorf("aggregate %q models %+v, recount %+v", ak, st.Models, r.Models)
				}
			}
		}
		return nil
	})
}
