/**
 * The messages of the notification outbox, rendered when the code is issued so that the outbox row
 * holds exactly what is delivered.
 */
export type NotificationKind = 'EMAIL_VERIFICATION' | 'INVITATION' | 'PASSWORD_RESET' | 'PASSKEY_REGISTRATION';

export interface MessageInput {
  kind: NotificationKind;
  code: string;
  userId: string;
  orgId: string;
  displayName: string;
  email: string;
  /** `{{.Code}}`, `{{.UserID}}`, `{{.OrgID}}` (and `{{.LoginName}}`) are replaced */
  urlTemplate?: string;
  loginName: string;
  applicationName?: string;
  /** when the code expires */
  expiresAt: Date;
}

export function renderMessage(m: MessageInput): { subject: string; body: string } {
  const link = m.urlTemplate ? fillTemplate(m.urlTemplate, m) : undefined;
  const expires = `This code expires at ${m.expiresAt.toISOString().replace('T', ' ').slice(0, 16)} UTC.`;
  const greeting = `Hello ${m.displayName},`;
  switch (m.kind) {
    case 'EMAIL_VERIFICATION':
      return {
        subject: 'Verify your email address',
        body: [
          greeting,
          '',
          `please confirm that ${m.email} is your email address with this code: ${m.code}`,
          ...linkLines(link, 'Or open'),
          '',
          expires,
          '',
        ].join('\n'),
      };
    case 'INVITATION':
      return {
        subject: `You are invited to ${m.applicationName || 'Portcullis'}`,
        body: [
          greeting,
          '',
          `you have been invited to ${m.applicationName || 'Portcullis'}. Your login name is ${m.loginName}.`,
          `Set your password with this invitation code: ${m.code}`,
          ...linkLines(link, 'Or open'),
          '',
          expires,
          '',
        ].join('\n'),
      };
    case 'PASSWORD_RESET':
      return {
        subject: 'Reset your password',
        body: [
          greeting,
          '',
          `a password reset was requested for ${m.loginName}. Your reset code: ${m.code}`,
          ...linkLines(link, 'Or open'),
          '',
          'If you did not ask for this, ignore this message.',
          expires,
          '',
        ].join('\n'),
      };
    case 'PASSKEY_REGISTRATION':
      return {
        subject: 'Register a passkey',
        body: [
          greeting,
          '',
          `register a passkey for ${m.loginName}: open the link below on the device that is to hold it.`,
          ...linkLines(link, 'Open'),
          `Registration code: ${m.code}`,
          '',
          expires,
          '',
        ].join('\n'),
      };
  }
}

function linkLines(link: string | undefined, label: string): string[] {
  return link ? [`${label}: ${link}`] : [];
}

function fillTemplate(template: string, m: MessageInput): string {
  const values: Record<string, string> = { Code: m.code, UserID: m.userId, OrgID: m.orgId, LoginName: m.loginName };
  return template.replaceAll(/\{\{\.?(\w+)\}\}/g, (all, name: string) =>
    name in values ? encodeURIComponent(values[name]) : all,
  );
}
