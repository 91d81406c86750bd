package mutation

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/proposal"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

// A mutation of the session's base prompt (CLAUDE.md, whose versions are
// manifests of instruction files) changes one file: the project's
// CLAUDE.md (skillFile), the one instruction file sepad may write. The
// user's files (~/.claude, $CLAUDE_CONFIG_DIR), imports and files above
// the project are never offered. A mutator is sent that file's text at
// the version in force, a proposal is checked against its text at the
// baseline, and the version it makes is the manifest the next session
// will list: the version in force's, with the new file's hash.

// SessionText returns the text of the project's CLAUDE.md at a version
// of the session's base prompt: a *RefusalError (unknown_content) when
// the version lists no project CLAUDE.md or sepad never read its text.
func SessionText(db *store.DB, sk *record.Skill, v *record.Version) ([]byte, error) {
	path := skillFile(sk)
	files, ok := record.ManifestFiles(v)
	if !ok {
		return nil, &proposal.RefusalError{Rule: "unknown_content", Detail: fmt.Sprintf("v%d of %s lists no instruction files: nothing to mutate", v.Seq, sk.Display())}
	}
	for _, f := range files {
		if f.Path != path {
			continue
		}
		b, known, err := db.InstructionFile(f.Path, f.Hash)
		if err != nil {
			return nil, err
		}
		if !known {
			return nil, &proposal.RefusalError{Rule: "unknown_content", Detail: fmt.Sprintf("sepad never read %s while v%d of %s held it (%s): nothing to mutate", path, v.Seq, sk.Display(), f.Hash)}
		}
		return b, nil
	}
	return nil, &proposal.RefusalError{Rule: "unknown_content", Detail: fmt.Sprintf("v%d of %s has no %s, the one instruction file sepad may write: nothing to mutate", v.Seq, sk.Display(), path)}
}

// sessionProposal is the version a proposal of content for the project's
// CLAUDE.md makes of cur: cur's manifest with the file's new hash (added
// when cur had none), its text and version. The file's content is kept
// for show, diff and rollbacks.
func (e *Engine) sessionProposal(sk *record.Skill, cur *record.Version, content []byte) (record.Version, error) {
	path, h := skillFile(sk), promptfile.Hash(content)
	if err := e.db.PutInstructionFile(path, h, content); err != nil {
		return record.Version{}, err
	}
	e.kept[path+"\x00"+h] = true
	text, version := record.Manifest(nextManifest(sk, cur, content))
	return record.Version{Hash: version, Content: []byte(text), ContentKnown: true}, nil
}

// sessionVersionOf is the version sessionProposal makes, without
// writing.
func sessionVersionOf(sk *record.Skill, cur *record.Version, content []byte) string {
	_, version := record.Manifest(nextManifest(sk, cur, content))
	return version
}

// nextManifest is cur's manifest with the project CLAUDE.md at content's
// hash, sorted by path as a session's is.
func nextManifest(sk *record.Skill, cur *record.Version, content []byte) []execution.InstructionFile {
	path := skillFile(sk)
	files, _ := record.ManifestFiles(cur)
	files = slices.Clone(files)
	i := slices.IndexFunc(files, func(f execution.InstructionFile) bool { return f.Path == path })
	if i < 0 {
		files = append(files, execution.InstructionFile{Path: path})
		i = len(files) - 1
	}
	files[i].Hash = promptfile.Hash(content)
	slices.SortFunc(files, func(a, b execution.InstructionFile) int { return cmp.Compare(a.Path, b.Path) })
	return files
}
