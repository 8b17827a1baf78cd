package desktop

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/loopdesk/loopdesk/backend/images"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
)

// MaxImageBytes bounds one attached file: the original is kept in the journal whole.
const MaxImageBytes = stack.MaxImageBytes

// ImageInput is an image the page attaches to a message: the file's name and its bytes as
// base64 (a data: URL prefix is accepted).
type ImageInput struct {
	Name string `json:"name"`
	Data string `json:"data"`
}

// SendWithImages starts a run with text and images as the prompt. The images are stored as
// blobs first (deduplicated by hash) and named from the user row; a file that is not a PNG,
// JPEG, WebP or GIF, or is cut, is refused and nothing is stored or sent. Images wait for an
// idle session: while a run goes on, only text can be queued.
func (h *Chat) SendWithImages(sessionID, text string, imgs []ImageInput) (string, error) {
	if len(imgs) == 0 {
		return h.SendMessage(sessionID, text)
	}
	c := h.c
	if c.running(sessionID) {
		return "", fmt.Errorf("%w: images can be sent once the run has ended; the text alone can be queued", ErrInvalidInput)
	}
	raw := make([]RawImage, len(imgs))
	for i, in := range imgs {
		data, err := decodeImage(in.Data)
		if err != nil {
			return "", fmt.Errorf("%w: image %q: %v", ErrInvalidInput, in.Name, err)
		}
		raw[i] = RawImage{Name: in.Name, Data: data}
	}
	refs, err := StoreImages(c.context(), c.db, raw)
	if err != nil {
		return "", err
	}
	text = strings.TrimSpace(text)
	return c.start(sessionID, func(spec *loop.RunSpec) { spec.Prompt, spec.Images = text, refs })
}

// RawImage is an image file's name and bytes (stack.RawImage).
type RawImage = stack.RawImage

// StoreImages checks and stores images (stack.StoreImages).
func StoreImages(ctx context.Context, db *store.DB, imgs []RawImage) ([]store.ImageRef, error) {
	return stack.StoreImages(ctx, db, imgs)
}

func decodeImage(s string) ([]byte, error) {
	if rest, ok := strings.CutPrefix(s, "data:"); ok {
		_, b64, found := strings.Cut(rest, ";base64,")
		if !found {
			return nil, errors.New("a data URL without base64 data")
		}
		s = b64
	}
	data, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("not base64: %v", err)
	}
	return data, nil
}

// Image returns a stored image as a data URL, for the conversation's thumbnails.
func (s *Sessions) Image(hash string) (string, error) {
	b, err := s.c.db.GetBlob(s.c.context(), hash)
	if err != nil {
		return "", err
	}
	return images.DataURL(b.MIME, b.Data), nil
}

// SeesImages says whether the saved provider's model is sent images: the person's vision
// setting for it, else the default from its name (vision.go). The page says so next to the
// attached images when it is not.
func (h *Chat) SeesImages() (bool, error) {
	set, err := h.c.settings.Load(h.c.context())
	if err != nil {
		return false, err
	}
	return set.SeesImages(set.Provider, set.Model), nil
}

// SessionSeesImages says whether the session's next run sends images: its own provider and
// model (the header's choice) under the vision setting, else the default from the name. The
// page shows the text-only note from it while that session is open.
func (h *Chat) SessionSeesImages(sessionID string) (bool, error) {
	ctx := h.c.context()
	r, _, err := h.c.settings.Effective(ctx)
	if err != nil {
		return false, err
	}
	s, err := h.c.db.GetSession(ctx, sessionID)
	if err != nil {
		return false, err
	}
	choice, err := h.c.runChoice(s, r)
	if err != nil {
		return false, err
	}
	return SavedSettings{Vision: r.Vision}.SeesImages(choice.Provider, choice.Model), nil
}
