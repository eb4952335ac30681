import type { InstanceSettings } from '../../instance/settings';
import type { Declarations } from '../declare';

export interface InstanceEvents {
  'instance.added': { name: string };
  'instance.changed': { name: string };
  'instance.domain.added': { domain: string; generated?: boolean; trusted?: boolean };
  'instance.domain.removed': { domain: string };
  /** only the settings the command set */
  'instance.settings.changed': Partial<InstanceSettings>;
}

export const instanceEvents: Declarations<InstanceEvents> = {
  'instance.added': {
    aggregate: 'instance',
    names: ['Instance added', 'Instanz hinzugefügt'],
    invalidates: ['token-lookups'],
  },
  'instance.changed': {
    aggregate: 'instance',
    names: ['Instance changed', 'Instanz geändert'],
    invalidates: ['token-lookups'],
  },
  'instance.domain.added': {
    aggregate: 'instance',
    names: ['Instance domain added', 'Instanz-Domain hinzugefügt'],
    invalidates: ['token-lookups'],
  },
  'instance.domain.removed': {
    aggregate: 'instance',
    names: ['Instance domain removed', 'Instanz-Domain entfernt'],
    invalidates: ['token-lookups'],
  },
  'instance.settings.changed': {
    aggregate: 'instance',
    names: ['Instance settings changed', 'Instanz-Einstellungen geändert'],
    invalidates: ['token-lookups', 'instance-settings'],
  },
};
