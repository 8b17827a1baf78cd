import { useCallback, useEffect, useState } from 'react';
import { api } from '../api/backend';
import type { SkillView } from '../api/types';
import { errorMessage } from '../api/types';

/**
 * Settings → Skills' state: the skills of the session's folder and the person's own, and the
 * person's trust in each project skill. Trust is decided in Go against the hash shown here: a
 * SKILL.md edited meanwhile is not trusted.
 */
export function useSkills(sessionID: string | null) {
  const [skills, setSkills] = useState<SkillView[]>([]);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState('');
  useEffect(() => {
    let live = true;
    api
      .skills(sessionID ?? '')
      .then((s) => live && (setSkills(s), setError('')))
      .catch((e) => live && setError(errorMessage(e)));
    return () => {
      live = false;
    };
  }, [sessionID]);
  const act = useCallback(
    async (s: SkillView, trust: boolean) => {
      if (!sessionID) return;
      setBusy(s.path);
      try {
        setSkills(trust ? await api.trustSkill(sessionID, s.path, s.sha256) : await api.untrustSkill(sessionID, s.path));
        setError('');
      } catch (e) {
        setError(errorMessage(e));
        api.skills(sessionID).then(setSkills, () => undefined); // show the file as it is now
      } finally {
        setBusy('');
      }
    },
    [sessionID],
  );
  return { skills, error, busy, trust: (s: SkillView) => act(s, true), untrust: (s: SkillView) => act(s, false) };
}
