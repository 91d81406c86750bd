package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

func versionKey(skill, hash string) []byte { return []byte(skill + "\x00" + hash) }

func aggKey(skill, version, rubric string) []byte {
	return []byte(skill + "\x00" + version + "\x00" + rubric)
}

func versionIndexKey(skill, version string, seq uint64) []byte {
	k := []byte(skill + "\x00" + version + "\x00")
	return append(k, u64(^seq)...)
}

func u64(n uint64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, n)
	return b
}

func getU64(b []byte) uint64 {
	if len(b) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}

func putJSON(b *bolt.Bucket, k []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %q: %w", k, err)
	}
	return b.Put(k, data)
}

func getSkill(tx *bolt.Tx, key string) (*Skill, error) {
	v := tx.Bucket(bSkills).Get([]byte(key))
	if v == nil {
		return nil, nil
	}
	var s Skill
	if err := json.Unmarshal(v, &s); err != nil {
		return nil, fmt.Errorf("decode skill %q: %w", key, err)
	}
	return &s, nil
}

func putSkill(tx *bolt.Tx, s *Skill) error {
	c := *s
	c.Versions, c.State = nil, nil
	return putJSON(tx.Bucket(bSkills), []byte(s.Key), c)
}
