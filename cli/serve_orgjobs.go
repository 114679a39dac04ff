package cli

import (
	"fmt"
	"strconv"
	"strings"

	"lectern.dev/lectern"
)

// planLimitsFlag is --org-jobs-by-plan: plan=N pairs, comma-separated.
type planLimitsFlag map[lectern.Plan]int

func (p *planLimitsFlag) String() string {
	if p == nil || len(*p) == 0 {
		return ""
	}
	var parts []string
	for _, plan := range []lectern.Plan{lectern.PlanFree, lectern.PlanPro, lectern.PlanEnterprise} {
		if n, ok := (*p)[plan]; ok {
			parts = append(parts, fmt.Sprintf("%s=%d", plan, n))
		}
	}
	return strings.Join(parts, ",")
}

func (p *planLimitsFlag) Set(s string) error {
	m := planLimitsFlag{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, num, ok := strings.Cut(part, "=")
		if !ok {
			return fmt.Errorf("%q is not plan=N: write it like enterprise=4,pro=2", part)
		}
		plan, err := lectern.ParsePlan(strings.TrimSpace(name))
		if err != nil {
			return fmt.Errorf("%q: %s", part, lectern.ErrorMessage(err))
		}
		n, err := strconv.Atoi(strings.TrimSpace(num))
		if err != nil || n < 0 {
			return fmt.Errorf("%q: the limit must be a whole number, 0 for none", part)
		}
		m[plan] = n
	}
	*p = m
	return nil
}

func (p *planLimitsFlag) Type() string { return "plan=N,..." }
