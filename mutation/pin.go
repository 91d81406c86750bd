package mutation

import (
	"fmt"
	"os"
	"strings"

	"github.com/sepad/sepad/prompt"
	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/proposal"
	"github.com/sepad/sepad/record"
)

// StatusPinned is the status of the version a person pinned.
const StatusPinned = "pinned"

// Pin pins a skill to version (vN, a hash or a hash prefix; "" for the
// content of its file now): while pinned, sepad never writes the skill's
// file and decides nothing about its versions, until Unpin. Pinning a
// version the file does not hold restores it first, with the conflict
// check of every rollback.
func (e *Engine) Pin(key, version string) (Record, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	sk, st, err := e.skillAndState(key)
	if err != nil {
		return Record{}, err
	}
	var h string
	if sk.Kind == prompt.KindSession {
		h, err = e.inForce(sk) // a manifest's files, not one file
	} else {
		var b []byte
		b, err = os.ReadFile(skillFile(sk))
		h = promptfile.Hash(b)
	}
	if err != nil {
		return Record{}, fmt.Errorf("pin %s: %w", sk.Display(), err)
	}
	var cur, target *record.Version
	for i := range sk.Versions {
		v := &sk.Versions[i]
		if v.Hash == h {
			cur = v
		}
		if version != "" && (v.Hash == version || len(version) >= 4 && strings.HasPrefix(v.Hash, version) || fmt.Sprintf("v%d", v.Seq) == version) {
			target = v
		}
	}
	switch {
	case version == "" && cur == nil:
		return Record{}, &proposal.RefusalError{Rule: "unknown_content", Detail: fmt.Sprintf("%s holds content sepad has not recorded yet (%s): wait for the daemon to see it, or name a version", skillFile(sk), h)}
	case version == "":
		target = cur
	case target == nil:
		return Record{}, &proposal.RefusalError{Rule: "no_target", Detail: fmt.Sprintf("no version %q of %s", version, sk.Display())}
	}
	if cur == nil || cur.Hash != target.Hash {
		if cur == nil {
			return Record{}, &proposal.RefusalError{Rule: "unknown_content", Detail: fmt.Sprintf("%s holds content sepad never recorded (%s): edit it by hand", skillFile(sk), h)}
		}
		if !target.ContentKnown {
			return Record{}, &proposal.RefusalError{Rule: "content_unknown", Detail: fmt.Sprintf("the content of v%d was never seen", target.Seq)}
		}
		st.Pinned = ""
		if err := e.rollback(sk, st, cur, target, "manual", "", nil); err != nil {
			return Record{}, err
		}
		if last := e.lastRecord(key); !last.Applied {
			e.saveState(key, st)
			return last, &proposal.RefusalError{Rule: "not_restored", Detail: "v" + fmt.Sprint(target.Seq) + " was not restored, so nothing is pinned: " + last.Words}
		}
	}
	st.Pinned = target.Hash
	if err := e.saveState(key, st); err != nil {
		return Record{}, err
	}
	rec := Record{Kind: KindPin, SkillKey: key, Skill: sk.Name, Rule: "pin", To: target.Hash, Applied: true,
		Words: fmt.Sprintf("%s pinned to v%d (%s): sepad will not rewrite %s or decide about its versions until `sepad unpin %s`",
			sk.Display(), target.Seq, target.Hash, skillFile(sk), sk.Display())}
	return rec, e.record(rec)
}

// Unpin lets sepad decide about a pinned skill again.
func (e *Engine) Unpin(key string) (Record, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	sk, st, err := e.skillAndState(key)
	if err != nil {
		return Record{}, err
	}
	if st.Pinned == "" {
		return Record{}, &proposal.RefusalError{Rule: "not_pinned", Detail: sk.Display() + " is not pinned"}
	}
	from := st.Pinned
	st.Pinned = ""
	if err := e.saveState(key, st); err != nil {
		return Record{}, err
	}
	rec := Record{Kind: KindUnpin, SkillKey: key, Skill: sk.Name, Rule: "unpin", From: from, Applied: true,
		Words: fmt.Sprintf("%s unpinned: sepad decides about its versions again", sk.Display())}
	return rec, e.record(rec)
}

// pinnedRefusal refuses a write to a pinned skill's file.
func pinnedRefusal(name string, st *SkillState) error {
	if st.Pinned == "" {
		return nil
	}
	return &proposal.RefusalError{Rule: "pinned", Detail: fmt.Sprintf("%s is pinned to %s: sepad never writes its file; run `sepad unpin %s` first", name, st.Pinned, name)}
}
