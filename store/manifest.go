package store

import (
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/sepad/sepad/event"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/record"
)

// bInstructionFiles holds the content of instruction files by path and
// hash, so that a rollback of a _session version can restore the files
// its manifest names. It is created on first use: a database without it
// simply knows no content yet (so it is not in allBuckets, which a
// read-only open requires).
var bInstructionFiles = []byte("instruction_files")

// putManifest gives the version record of a _session execution's manifest
// its content, the manifest's text ("path  hash" lines), so that show and
// diff name the file that changed.
func putManifest(tx *bolt.Tx, sk *record.Skill, hash string, x *execution.Execution) error {
	if len(x.Instructions) == 0 || hash != x.SkillVersion {
		return nil
	}
	vb := tx.Bucket(bVersions)
	k := versionKey(sk.Key, hash)
	var v record.Version
	if old := vb.Get(k); old != nil {
		if err := json.Unmarshal(old, &v); err != nil {
			return fmt.Errorf("decode version %s of %s: %w", hash, sk.Key, err)
		}
	}
	if v.ContentKnown {
		return nil
	}
	v.Content, v.ContentKnown, v.Source = []byte(event.ManifestText(x.Instructions)), true, record.SourceManifest
	if v.FirstSeen.IsZero() {
		v.FirstSeen = x.StartedAt
	}
	return putJSON(vb, k, v)
}

func fileKey(path, hash string) []byte { return []byte(boundPart(path) + "\x00" + boundPart(hash)) }

// PutInstructionFile keeps the content of an instruction file at hash,
// once.
func (db *DB) PutInstructionFile(path, hash string, content []byte) error {
	return db.update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bInstructionFiles)
		if err != nil {
			return err
		}
		k := fileKey(path, hash)
		if b.Get(k) != nil {
			return nil
		}
		return b.Put(k, content)
	})
}

// InstructionFile returns the content of an instruction file at hash, and
// whether it is known.
func (db *DB) InstructionFile(path, hash string) ([]byte, bool, error) {
	var out []byte
	var ok bool
	err := db.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bInstructionFiles)
		if b == nil {
			return nil
		}
		if v := b.Get(fileKey(path, hash)); v != nil {
			out, ok = append([]byte(nil), v...), true
		}
		return nil
	})
	return out, ok, err
}
