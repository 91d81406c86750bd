package store

import (
	"bytes"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/sepad/sepad/activation"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/record"
)

// bActivation counts, per skill and version (key skill\x00hash), how its
// executions were invoked: by the model, typed, typed after a turn without
// it (activation.Counts; docs/activation.md). Counted at commit, from the
// executions stored since the marks exist; Prune leaves the counts (they
// are the skill's history, not its records). It is created on first use,
// so it is not in allBuckets, which a read-only open requires.
var bActivation = []byte("activation")

// countActivation counts x's activation in tc, to be written with the
// commit (putActivations).
func (tc *txCache) countActivation(tx *bolt.Tx, skillKey, version string, x *execution.Execution) error {
	if x.InvokedBy == "" {
		return nil
	}
	k := string(versionKey(skillKey, version))
	c := tc.acts[k]
	if c == nil {
		c = &activation.Counts{}
		if b := tx.Bucket(bActivation); b != nil {
			if v := b.Get([]byte(k)); v != nil {
				if err := json.Unmarshal(v, c); err != nil {
					return fmt.Errorf("decode activation %q: %w", k, err)
				}
			}
		}
		tc.acts[k] = c
	}
	c.Add(x.InvokedBy, x.MissedActivation)
	return nil
}

// putActivations writes the counts a commit changed.
func (tc *txCache) putActivations(tx *bolt.Tx) error {
	if len(tc.acts) == 0 {
		return nil
	}
	b, err := tx.CreateBucketIfNotExists(bActivation)
	if err != nil {
		return err
	}
	for k, c := range tc.acts {
		if err := putJSON(b, []byte(k), c); err != nil {
			return err
		}
	}
	return nil
}

// withActivation fills each version's Activation, and its Description
// when the record predates it and holds the content.
func withActivation(tx *bolt.Tx, skillKey string, vs []record.Version) error {
	b := tx.Bucket(bActivation)
	for i := range vs {
		if b == nil {
			break
		}
		v := b.Get(versionKey(skillKey, vs[i].Hash))
		if v == nil {
			continue
		}
		var c activation.Counts
		if err := json.Unmarshal(v, &c); err != nil {
			return fmt.Errorf("decode activation of %s %s: %w", skillKey, vs[i].Hash, err)
		}
		vs[i].Activation = &c
	}
	return nil
}

// descriptionOf computes a version record's Description when it has
// content and none recorded (a record written before the field).
func descriptionOf(tx *bolt.Tx, skillKey string, v *record.Version) {
	if v.Description != "" || !v.ContentKnown {
		return
	}
	content := v.Content
	if content == nil {
		raw := tx.Bucket(bVersions).Get(versionKey(skillKey, v.Hash))
		var full struct {
			Content []byte `json:"content"`
		}
		if raw == nil || json.Unmarshal(raw, &full) != nil {
			return
		}
		content = full.Content
	}
	v.Description = activation.DescriptionHash(content)
}

// deleteActivation removes a skill's counts (Forget).
func deleteActivation(tx *bolt.Tx, prefix []byte) error {
	b := tx.Bucket(bActivation)
	if b == nil {
		return nil
	}
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Seek(prefix) {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}
