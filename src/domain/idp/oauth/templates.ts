// placeholder until the OAuth module lands
import type { OAuthProviderConfig } from './config';
export type TemplateInput = { template: string; clientId: string; [k: string]: unknown };
export function fromTemplate(input: TemplateInput): OAuthProviderConfig {
  return {
    protocol: 'oidc',
    clientId: input.clientId,
    clientAuth: 'client_secret_basic',
    scopes: [],
    usePkce: true,
    useUserinfo: false,
    mapping: {},
  };
}
