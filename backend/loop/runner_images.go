package loop

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loopdesk/loopdesk/backend/images"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/store"
)

// BlobStore gives a stored image's bytes; a Store that is one (*store.DB) lets user rows'
// images reach the model.
type BlobStore interface {
	GetBlob(ctx context.Context, hash string) (store.Blob, error)
}

// Vision is a run's choice of whether its model is sent images: VisionAuto (the default from
// the model's name, images.SeesImages), VisionOn or VisionOff (the person's per-model setting).
type Vision string

const (
	VisionAuto Vision = ""
	VisionOn   Vision = "on"
	VisionOff  Vision = "off"
)

// seesImages says whether this run's model is sent images.
func (rn *run) seesImages() bool { return rn.spec.Vision.TextOnly(rn.spec.Model) == "" }

// TextOnly says why model is sent no images under this vision choice, "" when it is sent
// them. The runner leaves images out of requests exactly when it is not ""; a front end that
// attached images says so with it (RunSpec.ImagesDropped), never silently.
func (v Vision) TextOnly(model string) string {
	const kept = ": the image is kept in the session but not sent"
	switch {
	case v == VisionOn:
		return ""
	case v == VisionOff:
		return fmt.Sprintf("vision is off for model %s (Settings → Images)%s", model, kept)
	case !images.SeesImages(model):
		return fmt.Sprintf("model %s is text-only by its name (turn vision on for it in Settings → Images if it sees images)%s", model, kept)
	}
	return ""
}

// withImages loads the images msgs name (user rows' ImageRefs) into their Images, each fitted
// to the provider's limits for a request carrying that many images; the originals in the
// journal are not changed. A message keeps what was loaded (the session's message cache holds
// it), so an image is read and fitted once per session. A model that takes no images
// (seesImages) gets none: then msgs is copied without them, and the page says why.
func (rn *run) withImages(ctx context.Context, msgs []provider.Message) ([]provider.Message, error) {
	count := 0
	for i := range msgs {
		count += len(msgs[i].ImageRefs)
	}
	if count == 0 {
		return msgs, nil
	}
	if !rn.seesImages() {
		out := make([]provider.Message, len(msgs))
		copy(out, msgs)
		for i := range out {
			out[i].Images = nil
		}
		return out, nil
	}
	blobs, ok := rn.r.cfg.Store.(BlobStore)
	if !ok {
		return msgs, nil
	}
	for i := range msgs {
		m := &msgs[i]
		if len(m.ImageRefs) == 0 || len(m.Images) == len(m.ImageRefs) {
			continue
		}
		loaded := make([]provider.Image, 0, len(m.ImageRefs))
		for _, h := range m.ImageRefs {
			b, err := blobs.GetBlob(ctx, h)
			if err != nil {
				return nil, fmt.Errorf("image %s: %w", h, err)
			}
			fit, err := images.Fit(b.Data, images.Limits{}, count)
			if err != nil {
				return nil, fmt.Errorf("image %s: %w", h, err)
			}
			loaded = append(loaded, provider.Image{MediaType: fit.MIME, Data: fit.Data})
		}
		m.Images = loaded
	}
	return msgs, nil
}

// requestMessages are the messages of a model call on rows: derived through the session's
// cache, with the images sent loaded.
func (rn *run) requestMessages(rc *requestCache, rows []store.Chunk) ([]provider.Message, error) {
	msgs, err := rc.turnsOf(rows)
	if err != nil {
		return nil, err
	}
	return rn.withImages(rn.op, msgs)
}

// sentImages are the images a request built from rows carried, each by its user row, oldest
// first: those of user rows not compacted away and not excluded already.
func sentImages(rows []store.Chunk) ([]core.SentImage, error) {
	ex, err := store.ExclusionsOf(rows)
	if err != nil {
		return nil, err
	}
	msgs, err := store.Turns(rows) // what was sent: rows compacted away carry no image
	if err != nil {
		return nil, err
	}
	sent := map[string]bool{}
	for _, m := range msgs {
		for _, h := range m.ImageRefs {
			sent[h] = true
		}
	}
	var out []core.SentImage
	for _, r := range rows {
		if r.Kind != store.KindUser {
			continue
		}
		var p store.UserPayload
		if err := json.Unmarshal(r.Payload, &p); err != nil {
			return nil, err
		}
		ex.Apply(r.Seq, &p)
		for _, im := range p.Images {
			if !im.Excluded && sent[im.Hash] {
				out = append(out, core.SentImage{Seq: r.Seq, Hash: im.Hash})
			}
		}
	}
	return out, nil
}
