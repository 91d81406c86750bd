package activation

// Version is one content version of a skill, as the grouping reads it.
type Version struct {
	Seq  int
	Hash string
	// Description is DescriptionHash of the version's content, "" when
	// its content is not known.
	Description string
	Counts      Counts
}

// Group is one version of a skill's description: the consecutive content
// versions that had it, and their activations together.
type Group struct {
	// Description is its DescriptionHash ("" when no version of it has a
	// known content).
	Description string `json:"description"`
	// From and To are the first and last version numbers (v3 … v5).
	From   int      `json:"from"`
	To     int      `json:"to"`
	Hashes []string `json:"hashes"`
	Counts
}

// Groups puts a skill's versions, in order, into description versions: a
// run of consecutive versions with the same description is one group. A
// version whose content is not known joins the group before it (nothing
// says its description changed).
func Groups(vs []Version) []Group {
	var out []Group
	for _, v := range vs {
		if n := len(out); n > 0 {
			g := &out[n-1]
			if v.Description == "" || v.Description == g.Description || g.Description == "" {
				if g.Description == "" {
					g.Description = v.Description
				}
				g.To = v.Seq
				g.Hashes = append(g.Hashes, v.Hash)
				g.Counts = g.Counts.Plus(v.Counts)
				continue
			}
		}
		out = append(out, Group{Description: v.Description, From: v.Seq, To: v.Seq, Hashes: []string{v.Hash}, Counts: v.Counts})
	}
	return out
}
