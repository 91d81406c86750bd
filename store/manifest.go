package store

import (
	"encoding/json"
	"fmt"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/sepad/sepad/event"
	"github.com/sepad/sepad/execution"
)

// InstructionFile is one file of a _session manifest and its hash.
type InstructionFile = execution.InstructionFile

// SourceManifest is the Source of a _session version recorded from a
// session's manifest of instruction files (docs/executions.md).
const SourceManifest = "session manifest"

// bInstructionFiles holds the content of instruction files by path and
// hash, so that a rollback of a _session version can restore the files
// its manifest names. It is created on first use: a database without it
// simply knows no content yet (so it is not in allBuckets, which a
// read-only open requires).
var bInstructionFiles = []byte("instruction_files")

// putManifest gives the version record of a _session execution's manifest
// its content, the manifest's text ("path  hash" lines), so that show and
// diff name the file that changed.
func putManifest(tx *bolt.Tx, sk *Skill, hash string, x *execution.Execution) error {
	if len(x.Instructions) == 0 || hash != x.SkillVersion {
		return nil
	}
	vb := tx.Bucket(bVersions)
	k := versionKey(sk.Key, hash)
	var v Version
	if old := vb.Get(k); old != nil {
		if err := json.Unmarshal(old, &v); err != nil {
			return fmt.Errorf("decode version %s of %s: %w", hash, sk.Key, err)
		}
	}
	if v.ContentKnown {
		return nil
	}
	v.Content, v.ContentKnown, v.Source = []byte(event.ManifestText(x.Instructions)), true, SourceManifest
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

// ManifestFiles returns the files a _session version's manifest lists;
// false when the version is not a session manifest. A version a mutator
// proposed (or a rollback wrote) for CLAUDE.md is recorded as the
// manifest it makes (mutation, session_propose.go); one written before
// that holds CLAUDE.md's text, which does not parse as a manifest.
func ManifestFiles(v *Version) ([]execution.InstructionFile, bool) {
	if v == nil || !v.ContentKnown || v.Source != SourceManifest && !strings.HasSuffix(v.SkillKey, "#"+execution.SessionSkill) {
		return nil, false
	}
	return event.ParseManifest(string(v.Content))
}

// Manifest returns the text and version of the manifest of files (sorted
// by path, as a session's is): what a _session version holds.
func Manifest(files []InstructionFile) (text, version string) {
	return event.ManifestText(files), event.ManifestVersion(files)
}
