package collector

import (
	"fmt"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/transcript"
)

// restoreTranscripts has the tracker load each committed read position
// from the store when it needs it, rather than holding them all: there is
// one per session transcript ever read, so they would grow without bound.
func (c *Collector) restoreTranscripts() error {
	if c.opts.Transcripts == nil {
		return nil
	}
	c.opts.Transcripts.Load = func(path string) (transcript.State, bool, error) {
		o, ok, err := c.db.TranscriptOffset(path)
		if err != nil {
			return transcript.State{}, false, fmt.Errorf("load transcript offset: %w", err)
		}
		return transcript.State{Path: o.Path, Offset: o.Offset, LastMessage: o.LastMessage}, ok, nil
	}
	return nil
}

// transcriptsCommitted lets the tracker forget the read positions a
// commit stored.
func (c *Collector) transcriptsCommitted(offs []record.TranscriptOffset) {
	if c.opts.Transcripts == nil || len(offs) == 0 {
		return
	}
	states := make([]transcript.State, len(offs))
	for i, o := range offs {
		states[i] = transcript.State{Path: o.Path, Offset: o.Offset, LastMessage: o.LastMessage}
	}
	c.opts.Transcripts.Committed(states)
}

// enrich reads a closed execution's part of its transcript before it is
// scored (docs/executions.md, "Tokens and cost"), and puts the moved read
// positions in the batch, so they commit with the execution.
func (c *Collector) enrich(x *execution.Execution) {
	tr := c.opts.Transcripts
	if tr == nil {
		return
	}
	tr.Enrich(x, c.opts.Now, c.opts.Sleep)
	for _, st := range tr.Dirty() {
		o := record.TranscriptOffset{Path: st.Path, Offset: st.Offset, LastMessage: st.LastMessage}
		replaced := false
		for i := range c.batch.Transcripts {
			if c.batch.Transcripts[i].Path == o.Path {
				c.batch.Transcripts[i], replaced = o, true
			}
		}
		if !replaced {
			c.batch.Transcripts = append(c.batch.Transcripts, o)
		}
	}
}
