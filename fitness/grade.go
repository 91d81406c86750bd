package fitness

import (
	"fmt"
	"strings"
)

// Grade is the letter grade of a score (the rubric's "Score
// Interpretation" table).
type Grade string

// Grades, best first. Ungraded marks a version with too few scored
// executions, or an unscored execution.
const (
	APlus    Grade = "A+"
	A        Grade = "A"
	B        Grade = "B"
	C        Grade = "C"
	D        Grade = "D"
	F        Grade = "F"
	Ungraded Grade = ""
)

// GradeOf returns the grade of a 0-100 score: A+ ≥ 90, A ≥ 80, B ≥ 70,
// C ≥ 60, D ≥ 50, F below. Scores are rounded to 2 decimals first, so 89.99
// is an A and 89.995 an A+.
func GradeOf(score float64) Grade {
	s := round(score, 2)
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

// Advice is the rubric's interpretation of a grade: what to do about the
// prompt.
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
	return "Ungraded - not enough scored executions"
}

// Rank orders grades: F is 0, A+ is 5, Ungraded is -1.
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

// MinScore is the lowest score with this grade.
func (g Grade) MinScore() float64 {
	return [...]float64{0, 50, 60, 70, 80, 90}[max(g.Rank(), 0)]
}

// ParseGrade parses "A+", "a", "B", …, "F".
func ParseGrade(s string) (Grade, error) {
	g := Grade(strings.ToUpper(strings.TrimSpace(s)))
	if g.Rank() < 0 {
		return Ungraded, fmt.Errorf("%q is not a grade (A+, A, B, C, D or F)", s)
	}
	return g, nil
}
