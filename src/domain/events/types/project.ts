import { type ChangedFields, type Declarations, type Empty, type LocalizedNames, declareFor } from '../declare';

interface GrantRef {
  grantId: string;
  grantedOrgId: string;
}

/** The application's whole configuration of its type, as configOf() reads it. */
type ConfigAdded = { appId: string; clientId?: string | null; hasSecret: boolean } & ChangedFields;
type ConfigChanged = { appId: string } & ChangedFields;

export interface ProjectEvents {
  'project.added': { name: string } & ChangedFields;
  'project.changed': ChangedFields;
  'project.deactivated': Empty;
  'project.reactivated': Empty;
  'project.removed': Empty;
  'project.role.added': { key: string; displayName: string; group: string };
  'project.role.changed': { key: string } & ChangedFields;
  'project.role.removed': { key: string };
  'project.grant.added': GrantRef & { roleKeys: string[] };
  'project.grant.changed': GrantRef & { roleKeys: string[] };
  'project.grant.deactivated': GrantRef;
  'project.grant.reactivated': GrantRef;
  'project.grant.removed': GrantRef;
  'project.application.added': { appId: string; name: string; type: string };
  'project.application.changed': { appId: string; name: string };
  'project.application.deactivated': { appId: string };
  'project.application.reactivated': { appId: string };
  'project.application.removed': { appId: string; clientId?: string | null };
  'project.application.config.oidc.added': ConfigAdded;
  'project.application.config.saml.added': ConfigAdded;
  'project.application.config.api.added': ConfigAdded;
  'project.application.config.oidc.changed': ConfigChanged;
  'project.application.config.saml.changed': ConfigChanged;
  'project.application.config.api.changed': ConfigChanged;
  'project.application.secret.changed': { appId: string };
  'project.application.key.added': { appId: string; keyId: string; keyType: string; expirationDate?: string };
  'project.application.key.removed': { appId: string; keyId: string };
}

// Every change of a project, its roles, grants and applications may change what a token grants.
const declared = declareFor('project');
const project = (names: LocalizedNames | null) => declared(names, 'token-lookups');

export const projectEvents: Declarations<ProjectEvents> = {
  'project.added': declared(['Project added', 'Projekt hinzugefügt']),
  'project.changed': project(['Project changed', 'Projekt geändert']),
  'project.deactivated': project(['Project deactivated', 'Projekt deaktiviert']),
  'project.reactivated': project(['Project reactivated', 'Projekt reaktiviert']),
  'project.removed': project(['Project removed', 'Projekt entfernt']),
  'project.role.added': project(['Project role added', 'Projektrolle hinzugefügt']),
  'project.role.changed': project(['Project role changed', 'Projektrolle geändert']),
  'project.role.removed': project(['Project role removed', 'Projektrolle entfernt']),
  'project.grant.added': project(['Project granted', 'Projekt berechtigt']),
  'project.grant.changed': project(['Project grant changed', 'Projektberechtigung geändert']),
  'project.grant.deactivated': project(['Project grant deactivated', 'Projektfreigabe deaktiviert']),
  'project.grant.reactivated': project(['Project grant reactivated', 'Projektfreigabe reaktiviert']),
  'project.grant.removed': project(['Project grant removed', 'Projektberechtigung entfernt']),
  'project.application.added': project(['Application added', 'Applikation hinzugefügt']),
  'project.application.changed': project(['Application changed', 'Applikation geändert']),
  'project.application.deactivated': project(null),
  'project.application.reactivated': project(null),
  'project.application.removed': project(['Application removed', 'Applikation entfernt']),
  'project.application.config.oidc.added': project(['OIDC configuration added', 'OIDC-Konfiguration hinzugefügt']),
  'project.application.config.saml.added': project(['SAML configuration added', 'SAML-Konfiguration hinzugefügt']),
  'project.application.config.api.added': project(['API configuration added', 'API-Konfiguration hinzugefügt']),
  'project.application.config.oidc.changed': project(null),
  'project.application.config.saml.changed': project(null),
  'project.application.config.api.changed': project(null),
  'project.application.secret.changed': project(null),
  'project.application.key.added': project(null),
  'project.application.key.removed': project(null),
};
