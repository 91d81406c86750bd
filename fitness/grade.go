package fitness

import (
	"fmt"
	"math"
	"strings"
)

// Grade is the letter grade of a score, from the rubric's "Score
// Interpretation" table. Grades compare with Rank, not as strings.
type Grade string

// Grades, best first.
const (
	APlus Grade = "A+"
	A     Grade = "A"
	B     Grade = "B"
	C     Grade = "C"
	D     Grade = "D"
	F     Grade = "F"
	// Ungraded marks an unscored execution, or a skill version with too
	// few scored executions to grade.
	Ungraded Grade = ""
)

// GradeOf returns the grade of a 0-100 score: A+ >= 90, A >= 80, B >= 70,
// C >= 60, D >= 50, F below. The score is first rounded to 2 decimals, the
// precision scores are shown with, so a mean of 89.996 (shown "90.00") is
// an A+ and 89.99 an A. NaN is Ungraded.
func GradeOf(score float64) Grade {
	if math.IsNaN(score) {
		return Ungraded
	}
	s := score
	if !math.IsInf(s, 0) {
		s = math.Round(s*100) / 100
	}
	switch {
	case s >= 90:
		return APlus
	case s >= 80:
		return A
	case s >= 70:
		return B
	case s >= 60:
		return C
	case s >= 50:
		return D
	}
	return F
}

// Advice is the rubric's interpretation of a grade: what the grade says
// about the prompt's need for mutation.
func (g Grade) Advice() string {
	switch g {
	case APlus:
		return "Excellent - rare mutation needed"
	case A:
		return "Very good - minor improvements"
	case B:
		return "Good - room for improvement"
	case C:
		return "Average - mutation recommended"
	case D:
		return "Below average - mutation required"
	case F:
		return "Poor - consider rollback"
	}
	return "Ungraded - not scored or too few samples"
}

// Rank orders grades for comparisons such as --fail-under: F is 0, D 1, …,
// A+ 5. Ungraded and unknown grades are -1, below every grade.
func (g Grade) Rank() int {
	switch g {
	case APlus:
		return 5
	case A:
		return 4
	case B:
		return 3
	case C:
		return 2
	case D:
		return 1
	case F:
		return 0
	}
	return -1
}

// MinScore is the lowest score with grade g (0 for F and Ungraded).
func (g Grade) MinScore() float64 {
	return [...]float64{0, 50, 60, 70, 80, 90}[max(g.Rank(), 0)]
}

// ParseGrade parses a grade as users type it: "A+", "a", " b ". The empty
// string and anything else is an error; Ungraded cannot be parsed.
func ParseGrade(s string) (Grade, error) {
	g := Grade(strings.ToUpper(strings.TrimSpace(s)))
	if g.Rank() < 0 {
		return Ungraded, fmt.Errorf("parse grade %q: want one of A+, A, B, C, D, F", s)
	}
	return g, nil
}
