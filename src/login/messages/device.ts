/** Strings of the device authorization pages (RFC 8628). */
export const deviceEn = {
  deviceTitle: 'Connect a device',
  deviceText: 'Enter the code your device shows.',
  deviceCodeLabel: 'Code',
  deviceCodeHint: 'Eight letters, for example BCDF-GHJK',
  deviceWrongCode: 'This code is wrong or has expired. Check the code on your device, or start again there.',
  deviceConsentTitle: 'Allow {name} on your device?',
  deviceConsentText: '{name} asks for access as {user}. Allow it only if you started this on your own device.',
  deviceConsentScopes: 'It asks for: {scopes}',
  deviceAllow: 'Allow',
  deviceDeny: 'Deny',
  deviceAllowedTitle: 'Your device is connected',
  deviceAllowedText: 'You can return to your device and close this window.',
  deviceDeniedTitle: 'Access denied',
  deviceDeniedText: 'The device got no access. You can close this window.',
  deviceNotHere: 'This approval belongs to another sign-in or has expired. Enter the code again.',
};

export const deviceDe: typeof deviceEn = {
  deviceTitle: 'Gerät verbinden',
  deviceText: 'Geben Sie den Code ein, den Ihr Gerät anzeigt.',
  deviceCodeLabel: 'Code',
  deviceCodeHint: 'Acht Buchstaben, zum Beispiel BCDF-GHJK',
  deviceWrongCode:
    'Dieser Code ist falsch oder abgelaufen. Prüfen Sie den Code auf Ihrem Gerät oder starten Sie dort erneut.',
  deviceConsentTitle: '{name} auf Ihrem Gerät erlauben?',
  deviceConsentText:
    '{name} bittet um Zugriff als {user}. Erlauben Sie das nur, wenn Sie es selbst auf Ihrem Gerät gestartet haben.',
  deviceConsentScopes: 'Angefragt: {scopes}',
  deviceAllow: 'Erlauben',
  deviceDeny: 'Ablehnen',
  deviceAllowedTitle: 'Ihr Gerät ist verbunden',
  deviceAllowedText: 'Sie können zu Ihrem Gerät zurückkehren und dieses Fenster schließen.',
  deviceDeniedTitle: 'Zugriff abgelehnt',
  deviceDeniedText: 'Das Gerät hat keinen Zugriff erhalten. Sie können dieses Fenster schließen.',
  deviceNotHere: 'Diese Freigabe gehört zu einer anderen Anmeldung oder ist abgelaufen. Geben Sie den Code erneut ein.',
};
