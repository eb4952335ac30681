/** @jsxImportSource react */
import { type FormEvent, useState } from 'react';
import {
  type ApiConfiguration,
  type Application,
  ApiAuthMethodType,
  type SamlConfiguration,
} from '../../../../gen/portcullis/application/v2/application_pb';
import { ApplicationService } from '../../../../gen/portcullis/application/v2/application_service_pb';
import { fieldError } from '../components/field';
import { ShownOnce } from '../components/shown-once';
import { Failure } from '../components/status';
import { TextField } from '../components/text-field';
import { useWords } from '../context';
import { useChange } from '../mutations';
import { EnumSelect } from './oidc-settings';

/** An API application's settings: name, how it authenticates at introspection, its resource URI. */
export function ApiSettings({ app, mayWrite }: { app: Application; mayWrite: boolean }) {
  const t = useWords();
  const config = app.configuration.value as ApiConfiguration;
  const [name, setName] = useState(app.name);
  const [auth, setAuth] = useState(config.authMethodType);
  const [resource, setResource] = useState(config.resourceUri);
  const save = useChange(ApplicationService.method.updateApplication);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({
      applicationId: app.applicationId,
      name,
      configuration: { case: 'api', value: { authMethodType: auth, resourceUri: resource } },
      updateMask: { paths: ['name', 'api.auth_method_type', 'api.resource_uri'] },
    });
  };
  const err = (f: string) => fieldError(save.error, f);
  return (
    <form onSubmit={submit} aria-labelledby="app-settings-title">
      <h2 id="app-settings-title">{t.settings}</h2>
      <fieldset className="settings" disabled={!mayWrite}>
        <TextField id="app-name" label={t.name} value={name} onChange={setName} error={err('name')} />
        <EnumSelect
          id="app-auth"
          label={t.authMethod}
          value={auth}
          onChange={setAuth}
          options={[
            [ApiAuthMethodType.BASIC, t.authBasic],
            [ApiAuthMethodType.PRIVATE_KEY_JWT, t.authKey],
          ]}
        />
        <TextField
          id="app-resource"
          label={t.resourceUri}
          value={resource}
          onChange={setResource}
          error={err('api.resource_uri')}
        />
      </fieldset>
      {mayWrite && <SaveButton pending={save.isPending} saved={save.isSuccess && !save.data.clientSecret} />}
      {save.data?.clientSecret && <ShownOnce clientSecret={save.data.clientSecret} onDone={() => save.reset()} />}
      {save.error && !err('name') && !err('api.resource_uri') && <Failure error={save.error} />}
    </form>
  );
}

/** A SAML service provider's settings: name and where its metadata comes from. */
export function SamlSettings({ app, mayWrite }: { app: Application; mayWrite: boolean }) {
  const t = useWords();
  const config = app.configuration.value as SamlConfiguration;
  const [name, setName] = useState(app.name);
  const [url, setUrl] = useState(config.metadata.case === 'metadataUrl' ? config.metadata.value : '');
  const save = useChange(ApplicationService.method.updateApplication);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({
      applicationId: app.applicationId,
      name,
      configuration: { case: 'saml', value: { metadata: { case: 'metadataUrl', value: url } } },
    });
  };
  const err = (f: string) => fieldError(save.error, f);
  return (
    <form onSubmit={submit} aria-labelledby="app-settings-title">
      <h2 id="app-settings-title">{t.settings}</h2>
      <fieldset className="settings" disabled={!mayWrite}>
        <TextField id="app-name" label={t.name} value={name} onChange={setName} error={err('name')} />
        <TextField
          id="app-metadata-url"
          label={t.metadataUrl}
          value={url}
          onChange={setUrl}
          error={err('saml.metadata_url')}
        />
      </fieldset>
      {mayWrite && <SaveButton pending={save.isPending} saved={save.isSuccess} />}
      {save.error && !err('name') && !err('saml.metadata_url') && <Failure error={save.error} />}
    </form>
  );
}

export function SaveButton({ pending, saved }: { pending: boolean; saved: boolean }) {
  const t = useWords();
  return (
    <p>
      <button type="submit" disabled={pending}>
        {t.save}
      </button>{' '}
      {saved && <span role="status">{t.saved}</span>}
    </p>
  );
}
