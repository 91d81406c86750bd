package evolve

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	mrand "math/rand/v2"
)

// Errors callers branch on.
var (
	// ErrUnknownStrategy: --strategy named no known strategy.
	ErrUnknownStrategy = errors.New("unknown strategy")
	// ErrBusy: an evolution of the skill is already running.
	ErrBusy = errors.New("an evolution of this skill is already running")
	// ErrMutator: the mutator failed, timed out or answered nothing usable.
	ErrMutator = errors.New("mutator failed")
	// ErrTooLarge: the skill's text is too large to send.
	ErrTooLarge = errors.New("too large")
)

// Draw is the exploration source: the n-th uniform number in [0, 1) of
// the stream seeded by seed (PCG, math/rand/v2, whose output is fixed by
// its specification). Each attempt records its seed and n, so a replay
// draws the same number and makes the same choice.
func Draw(seed uint64, n int) float64 {
	return mrand.New(mrand.NewPCG(seed, uint64(n))).Float64()
}

// NewSeed returns a fresh random seed for a skill's first attempt: 53
// bits, so that it survives any JSON reader exactly (a float64 holds it).
func NewSeed() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return 0x5e9a // crypto/rand does not fail on supported systems
	}
	return binary.LittleEndian.Uint64(b[:]) & (1<<53 - 1)
}
