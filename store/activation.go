package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"

	bolt "go.etcd.io/bbolt"

	"github.com/sepad/sepad/activation"
	"github.com/sepad/sepad/execution"
)

// bActivation counts, per skill and version (key skill\x00hash), how its
// executions were invoked: by the model, typed, typed after a turn without
// it (activation.Counts; docs/activation.md), as three uvarints: every
// listing reads one per version, and decoding JSON there cost a version
// listing of 1,000 skills about half again its time (BenchmarkListing). Counted at commit, from the
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
				if err := decodeCounts(v, c); err != nil {
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
		if err := b.Put([]byte(k), encodeCounts(c)); err != nil {
			return err
		}
	}
	return nil
}

// withActivation fills each version's Activation (vs sorted by Seq), in
// one pass over the skill's keys of the bucket.
func withActivation(tx *bolt.Tx, skillKey string, vs []Version) error {
	b := tx.Bucket(bActivation)
	if b == nil || len(vs) == 0 {
		return nil
	}
	prefix := []byte(skillKey + "\x00")
	c := b.Cursor()
	k, v := c.Seek(prefix)
	if k == nil || !bytes.HasPrefix(k, prefix) {
		return nil
	}
	at := make(map[string]int, len(vs))
	for i := range vs {
		at[vs[i].Hash] = i
	}
	for ; k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		i, ok := at[string(k[len(prefix):])]
		if !ok {
			continue
		}
		var n activation.Counts
		if err := decodeCounts(v, &n); err != nil {
			return fmt.Errorf("decode activation %q: %w", k, err)
		}
		vs[i].Activation = &n
	}
	return nil
}

// descriptionOf computes a version record's Description when it has
// content and none recorded (a record written before the field).
func descriptionOf(tx *bolt.Tx, skillKey string, v *Version) {
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

// encodeCounts is a stored activation record: Claude, User, Missed.
func encodeCounts(c *activation.Counts) []byte {
	b := make([]byte, 0, 3*binary.MaxVarintLen64)
	for _, n := range []int{c.Claude, c.User, c.Missed} {
		b = binary.AppendUvarint(b, uint64(max(n, 0)))
	}
	return b
}

// decodeCounts reads a record encodeCounts wrote.
func decodeCounts(b []byte, c *activation.Counts) error {
	var ns [3]int
	for i := range ns {
		n, w := binary.Uvarint(b)
		if w <= 0 || n > math.MaxInt32 {
			return fmt.Errorf("malformed counts %x", b)
		}
		ns[i], b = int(n), b[w:]
	}
	if len(b) != 0 {
		return fmt.Errorf("%d bytes after the counts", len(b))
	}
	c.Claude, c.User, c.Missed = ns[0], ns[1], ns[2]
	return nil
}
