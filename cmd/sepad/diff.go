package main

import (
	"fmt"
	"io"
	"strings"
)

func init() {
	register("diff", "compare two versions of a skill: SKILL A B", runDiff)
}

func runDiff(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var m mutFlags
	db, sk, pos, err := m.readSkill("diff", "sepad diff SKILL A B (versions as vN or hash)", args, 3, stderr)
	if err != nil {
		return err
	}
	defer db.Close()
	a, err := db.Version(sk.Key, pos[1])
	if err != nil {
		return err
	}
	b, err := db.Version(sk.Key, pos[2])
	if err != nil {
		return err
	}
	if !a.ContentKnown || !b.ContentKnown {
		return fmt.Errorf("the content of v%d or v%d was never seen", a.Seq, b.Seq)
	}
	fmt.Fprintf(stdout, "--- %s v%d (%s)\n+++ %s v%d (%s)\n", sk.Name, a.Seq, a.Hash, sk.Name, b.Seq, b.Hash)
	for _, l := range lineDiff(strings.Split(string(a.Content), "\n"), strings.Split(string(b.Content), "\n")) {
		fmt.Fprintln(stdout, l)
	}
	return nil
}

// lineDiff is a longest-common-subsequence line diff (prompt files are
// small).
func lineDiff(a, b []string) []string {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			out = append(out, " "+a[i])
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			out = append(out, "+"+b[j])
			j++
		default:
			out = append(out, "-"+a[i])
			i++
		}
	}
	return out
}
