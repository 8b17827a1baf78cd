package core

// A provider that refuses a request because of an image must not brick the session: the
// images to blame are left out of the context by one image_excluded row (never deleted; the
// page shows which and why) and the model is asked once more without them — the images of
// the newest user row that carried any, or every image sent when the server says the model
// takes none. A second refusal of the same call, or a refusal of a request that carried no
// image, ends the run as provider_error, so nothing loops.

// SentImage is one image a request carried: a blob of user row Seq, by its hash.
type SentImage struct {
	Seq  int64  `json:"seq"`
	Hash string `json:"hash"`
}

// imagesToBlame picks, among the images a refused request sent, the ones to leave out.
func imagesToBlame(sent []SentImage, all bool) []SentImage {
	if all || len(sent) == 0 {
		return sent
	}
	var newest int64
	for _, im := range sent {
		newest = max(newest, im.Seq)
	}
	var out []SentImage
	for _, im := range sent {
		if im.Seq == newest {
			out = append(out, im)
		}
	}
	return out
}

// onImageRefused answers a request the server refused for an image: exclude and ask again
// once (retried: this call was already that second request), or end the run.
func onImageRefused(s State, r ModelResponse, priced RowUsage, usage Emit, retried bool) (State, []Effect) {
	blame := imagesToBlame(r.ImagesSent, r.AllImagesRefused)
	if retried || len(blame) == 0 {
		r.Status = ResponseProviderError
		return onBrokenStream(s, r, priced, usage)
	}
	s.imagesRetried = true
	var out []Effect
	if priced.InputTokens+priced.OutputTokens > 0 {
		out = append(out, Persist{[]Row{UsageRow{Usage: priced, Reason: "the provider refused an image the request carried"}}})
	}
	provider := r.Origin.Provider
	row := ImageExcludedRow{Images: blame, Reason: orDefault(r.Err, "the provider refused an image"), Provider: provider, Model: s.Model}
	return s, append(out, Persist{[]Row{row}}, CallModel{Turn: s.Turns})
}
