/** @jsxImportSource react */
import { type ChangeEvent, useState } from 'react';
import { DataTable } from '../components/data-table';
import { Field } from '../components/field';
import { useUser, useWords } from '../context';
import { chunksOf, detect, type ImportBody, type ImportErrorRow, tally } from '../import-body';
import { convertKeycloak } from '../keycloak';
import { TextField } from '../components/text-field';
import { usePermissions } from '../permissions';

interface Run {
  file: string;
  sent: number;
  total: number;
  imported: number;
  errors: ImportErrorRow[];
  /** why the run stopped early: a refused request or an unreadable answer */
  stopped?: string;
  done: boolean;
}

/** A refused request's message as the v1 API words it (`{code, message}`), else its status. */
async function refusal(res: Response): Promise<string> {
  const text = await res.text();
  try {
    return `${res.status}: ${JSON.parse(text).message ?? text}`;
  } catch {
    return `${res.status}: ${text.slice(0, 300)}`;
  }
}

/**
 * Bulk import: a v1 import body uploaded from a file, or a Keycloak export converted here by the CLI's
 * own converter, sent to POST /admin/v1/import (the route the CLI uses) with the signed-in person's token,
 * in requests of at most 100 users, with a progress bar, the per-item errors and a summary. Item errors
 * do not stop the run; a refused request does.
 */
export function Import() {
  const t = useWords();
  const user = useUser();
  const { can, ready } = usePermissions();
  const [problem, setProblem] = useState<string>();
  const [run, setRun] = useState<Run>();
  const [orgId, setOrgId] = useState('');
  const [report, setReport] = useState<string>();
  const busy = run !== undefined && !run.done;

  const start = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    setProblem(undefined);
    setRun(undefined);
    setReport(undefined);
    const kind = detect(await file.text());
    if (kind.kind === 'unknown') return setProblem(kind.reason === 'json' ? t.importNotJson : t.importUnknown);
    let body: ImportBody;
    if (kind.kind === 'keycloak') {
      // the CLI's --org: the organization the realm's users go to (created, named after the realm, if new)
      const org = orgId.trim() || (kind.realm ?? '').toLowerCase().replace(/[^a-z0-9-]+/g, '-') || 'keycloak';
      try {
        const converted = await convertKeycloak(new Uint8Array(await file.arrayBuffer()), org);
        body = converted.body;
        setReport(converted.report);
      } catch (err) {
        return setProblem(String(err instanceof Error ? err.message : err));
      }
    } else body = kind.body;
    const chunks = chunksOf(body);
    let state: Run = { file: file.name, sent: 0, total: chunks.length, imported: 0, errors: [], done: false };
    setRun(state);
    for (const chunk of chunks) {
      let add: ReturnType<typeof tally>;
      try {
        const res = await fetch('/admin/v1/import', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${await user.accessToken()}` },
          body: JSON.stringify(chunk.body),
        });
        if (!res.ok) return setRun({ ...state, stopped: await refusal(res), done: true });
        add = tally(await res.json(), chunk.first);
      } catch (err) {
        return setRun({ ...state, stopped: String(err instanceof Error ? err.message : err), done: true });
      }
      state = {
        ...state,
        sent: state.sent + 1,
        imported: state.imported + add.imported,
        errors: [...state.errors, ...add.errors],
      };
      setRun(state);
    }
    setRun({ ...state, done: true });
  };

  const percent = run ? Math.round((100 * run.sent) / Math.max(1, run.total)) : 0;
  return (
    <section aria-labelledby="import-title" aria-busy={!ready}>
      <h1 id="import-title">{t.import}</h1>
      <p>{t.importIntro}</p>
      {/* the server refuses anyone without iam.write; the file input is not offered to them */}
      {can('iam.write') ? (
        <div className="inline-form">
          <TextField id="import-org" label={t.importOrg} value={orgId} onChange={setOrgId} />
          <Field id="import-file" label={t.importFile} error={problem}>
            <input id="import-file" type="file" accept=".json,application/json" disabled={busy} onChange={start} />
          </Field>
        </div>
      ) : (
        ready && <p>{t.importNotAllowed}</p>
      )}
      {run && (
        <>
          <div className="field">
            <label htmlFor="import-progress">{t.importProgress(run.file)}</label>
            <progress id="import-progress" max={100} value={percent} aria-valuenow={percent}>
              {percent} %
            </progress>
          </div>
          <p role="status">{run.done ? t.importSummary(run.imported, run.errors.length) : `${percent} %`}</p>
          {report && (
            <details>
              <summary>{t.importReport}</summary>
              <pre>{report}</pre>
            </details>
          )}
          {run.stopped && (
            <div className="failure" role="alert">
              <h2>{t.importStopped}</h2>
              <p>{run.stopped}</p>
            </div>
          )}
          {run.errors.length > 0 && (
            <>
              <h2>{t.importErrors}</h2>
              <DataTable
                rows={run.errors.map((e, n) => ({ ...e, n }))}
                rowKey={(e) => String(e.n)}
                columns={[
                  { header: t.importItem, cell: (e) => `${e.type} ${e.id}` },
                  { header: t.importField, cell: (e) => e.field },
                  { header: t.importMessage, cell: (e) => e.message },
                ]}
              />
            </>
          )}
        </>
      )}
    </section>
  );
}
