package cli

import (
	"fmt"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/loop/core"
)

// What `loopdesk run` does with the person's flags is said, never done silently: a flag that
// cannot apply is refused, a value the provider cannot take is raised with a notice, and an
// image the model will not see is named with the reason (stderr, and run_started).

// baseURLApplies refuses --base-url for a run on a provider of providers.json: that provider
// has its own base_url, and the flag would be ignored.
func baseURLApplies(o *runOptions, ps config.Providers, provider string) error {
	if o.flags.BaseURL == nil || provider == "" || provider == config.DefaultProvider {
		return nil
	}
	return runUsageError{fmt.Sprintf("--base-url applies to the default provider; %s has its own base_url in %s", provider, ps.Path)}
}

// thinkingBudget is the run's thinking budget: the flag, else the provider's. A flag below the
// smallest budget the provider's API accepts is raised to it, and notice says so.
func thinkingBudget(ps config.Providers, name string, flag *int) (budget int, notice string, err error) {
	e, err := ps.Endpoint(name)
	if err != nil || flag == nil {
		return e.ThinkingBudget, "", err
	}
	budget = *flag
	if low := e.Kind.MinThinkingBudget(); budget > 0 && budget < low {
		notice = fmt.Sprintf("--thinking-budget %d is below the minimum of provider %s (%s): using %d", budget, e.Name, e.Kind, low)
		budget = low
	}
	return budget, notice, nil
}

// imagesDropped names the --image files the run's model is not sent, with why (reason from
// images.Vision.TextOnly; "" when it is sent them).
func imagesDropped(paths []string, reason string) []core.DroppedImage {
	if reason == "" {
		return nil
	}
	out := make([]core.DroppedImage, len(paths))
	for i, p := range paths {
		out[i] = core.DroppedImage{Path: p, Reason: reason}
	}
	return out
}
