package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/loopdesk/loopdesk/backend/images"
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

// imageState is what a run keeps of the images a provider refused during it: the
// image_excluded rows it stored. A worker stores them, so the owner's mirror of the rows
// (run.chunks) does not hold them; every later model call of the run merges them in.
type imageState struct {
	mu       sync.Mutex
	excluded []store.Chunk
}

// withExcluded is rows with the run's image_excluded rows in their places by seq (rows itself
// when there are none; else a copy).
func (s *imageState) withExcluded(rows []store.Chunk) []store.Chunk {
	s.mu.Lock()
	ex := s.excluded
	s.mu.Unlock()
	if len(ex) == 0 {
		return rows
	}
	out := make([]store.Chunk, 0, len(rows)+len(ex))
	out = append(out, rows...)
	for _, c := range ex {
		i := sort.Search(len(out), func(i int) bool { return out[i].Seq >= c.Seq })
		if i < len(out) && out[i].Seq == c.Seq {
			continue // the rows already hold it
		}
		out = slices.Insert(out, i, c)
	}
	return slices.Clip(out)
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
	msgs, err := rc.turnsOf(rn.images.withExcluded(rows))
	if err != nil {
		return nil, err
	}
	return rn.withImages(rn.op, msgs)
}

// retryWithoutImages answers a model call the server refused because of an image (one bad
// image never bricks a session). The images to blame are left out of the context by
// an image_excluded row (never deleted; the page shows which and why) and the call is made
// once more without them: the images of the newest message that carried any, or every image
// sent when the server says the model takes none. A second refusal is returned as it is, so
// nothing loops. Any other response is returned unchanged.
func (rn *run) retryWithoutImages(rc *requestCache, rows []store.Chunk, resp provider.Response,
	call func([]provider.Message) provider.Response) provider.Response {
	if !provider.ImageRejected(resp.Err) || rn.op.Err() != nil || !rn.seesImages() {
		return resp
	}
	blame, err := imagesToBlame(rn.images.withExcluded(rows), provider.RefusesAllImages(resp.Err))
	if err != nil || len(blame) == 0 {
		return resp
	}
	who := rn.spec.origin.Provider
	if resp.Origin.Provider != "" {
		who = resp.Origin.Provider // the client names what refused (its configured name)
	}
	ctx, cancel := rn.writeCtx()
	defer cancel()
	added, err := rn.r.cfg.Store.Append(ctx, rn.spec.SessionID, rn.id, store.NewChunk{Kind: store.KindImageExcluded,
		Payload: store.ImageExcludedPayload{Images: blame, Reason: resp.Err.Error(), Provider: who, Model: rn.spec.Model}})
	if err != nil {
		rn.r.log.Error("image exclusion not stored", "session", rn.spec.SessionID, "err", err)
		return resp
	}
	rn.images.mu.Lock()
	rn.images.excluded = append(rn.images.excluded, added...)
	rn.images.mu.Unlock()
	rn.publish(RowsStoredPayload{Rows: RowsOf(added)})
	msgs, err := rn.requestMessages(rc, rows)
	if err != nil {
		return resp
	}
	return call(msgs)
}

// imagesToBlame are the images a refused request sent: those of the newest user row that
// carried any, or all of them.
func imagesToBlame(rows []store.Chunk, all bool) ([]store.ExcludedImage, error) {
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
	var out []store.ExcludedImage
	for i := len(rows) - 1; i >= 0 && (all || len(out) == 0); i-- {
		if rows[i].Kind != store.KindUser {
			continue
		}
		var p store.UserPayload
		if err := json.Unmarshal(rows[i].Payload, &p); err != nil {
			return nil, err
		}
		ex.Apply(rows[i].Seq, &p)
		for _, im := range p.Images {
			if !im.Excluded && sent[im.Hash] {
				out = append(out, store.ExcludedImage{Seq: rows[i].Seq, Hash: im.Hash})
			}
		}
	}
	return out, nil
}
