package collector

import (
	"fmt"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/store"
	"github.com/sepad/sepad/transcript"
)

// restoreTranscripts gives the tracker the committed read positions.
func (c *Collector) restoreTranscripts() error {
	if c.opts.Transcripts == nil {
		return nil
	}
	offs, err := c.db.TranscriptOffsets()
	if err != nil {
		return fmt.Errorf("restore transcript offsets: %w", err)
	}
	states := make([]transcript.State, len(offs))
	for i, o := range offs {
		states[i] = transcript.State{Path: o.Path, Offset: o.Offset, LastMessage: o.LastMessage}
	}
	c.opts.Transcripts.Restore(states)
	return nil
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
		o := store.TranscriptOffset{Path: st.Path, Offset: st.Offset, LastMessage: st.LastMessage}
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
