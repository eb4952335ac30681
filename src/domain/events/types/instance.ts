import type { InstanceSettings } from '../../instance/settings';
import type { LoginPolicy } from '../../policy/login-policy';
import { type Declarations, declareFor } from '../declare';

export interface InstanceEvents {
  'instance.added': { name: string };
  'instance.changed': { name: string };
  'instance.domain.added': { domain: string; generated?: boolean; trusted?: boolean };
  'instance.domain.removed': { domain: string };
  /** only the settings the command set */
  'instance.settings.changed': Partial<InstanceSettings>;
  /** the whole default login policy as set */
  'instance.login_policy.set': LoginPolicy;
}

const instance = declareFor('instance');

export const instanceEvents: Declarations<InstanceEvents> = {
  'instance.added': instance(['Instance added', 'Instanz hinzugefügt'], 'token-lookups', 'instance'),
  'instance.changed': instance(['Instance changed', 'Instanz geändert'], 'token-lookups', 'instance'),
  'instance.domain.added': instance(
    ['Instance domain added', 'Instanz-Domain hinzugefügt'],
    'token-lookups',
    'instance',
  ),
  'instance.domain.removed': instance(
    ['Instance domain removed', 'Instanz-Domain entfernt'],
    'token-lookups',
    'instance',
  ),
  // both rewrite the instance row (its settings and change date)
  'instance.settings.changed': instance(
    ['Instance settings changed', 'Instanz-Einstellungen geändert'],
    'token-lookups',
    'instance-settings',
    'instance',
  ),
  'instance.login_policy.set': instance(
    ['Default login policy set', 'Standard-Login-Richtlinie gesetzt'],
    'login-policy',
    'instance',
  ),
};
