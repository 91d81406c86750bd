package team

// Pooling many machines' runs for a decision (docs/team.md, "Deciding on
// pooled runs"). Machines differ: one person's tasks are harder, another
// runs the skill on a slower repository. When the two versions' runs
// come from different machines in different shares (the candidate
// reached some laptops first), a plain pooled mean compares machines as
// much as versions. Adjust removes each machine's own level: a run
// counts as its difference from its machine's mean over both versions,
// plus the grand mean, and a machine that ran only one version is left
// out (its level cannot be told from the version's effect). A model is
// treated the same way: the level taken out is that of the run's machine
// on the run's model, so a candidate that ran on a stronger model is not
// credited with the model's points. The sequential test then reads the
// adjusted scores as it reads one machine's.

// Run is one scored run of a version on a machine.
type Run struct {
	Machine   string
	Candidate bool
	Score     float64
	// Model names the model that answered the run (execution.Usage.Model;
	// "" unknown). A model moves scores as a machine does: each (machine,
	// model) pair's level is taken out alike (issue 37 item 3).
	Model string
}

// Adjust returns the baseline's and the candidate's scores with each
// machine's level removed, in the order given (newest first stays newest
// first), without the runs of machines that ran only one version.
func Adjust(runs []Run) (base, cand []float64) {
	type acc struct {
		sum float64
		n   int
		has [2]bool
	}
	per := map[string]*acc{}
	var grand float64
	var used int
	for _, r := range runs {
		a := per[r.Machine+"\x00"+r.Model]
		if a == nil {
			a = &acc{}
			per[r.Machine+"\x00"+r.Model] = a
		}
		a.sum += r.Score
		a.n++
		if r.Candidate {
			a.has[1] = true
		} else {
			a.has[0] = true
		}
	}
	for _, a := range per {
		if a.has[0] && a.has[1] {
			grand += a.sum
			used += a.n
		}
	}
	if used == 0 {
		return nil, nil
	}
	grand /= float64(used)
	for _, r := range runs {
		a := per[r.Machine+"\x00"+r.Model]
		if !a.has[0] || !a.has[1] {
			continue
		}
		x := r.Score - a.sum/float64(a.n) + grand
		if r.Candidate {
			cand = append(cand, x)
		} else {
			base = append(base, x)
		}
	}
	return base, cand
}
