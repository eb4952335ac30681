import { describe, expect, it } from 'vitest';
import { eventLabel, eventNames, labelledEventTypes } from '../../src/console/app/event-labels';
import { eventTypes } from '../../src/domain/events/registry';

/** Every event the server appends has a name in the console, in each of its languages. */
describe('console: event type names', () => {
  it('names every event type of the registry in English and German', () => {
    const missing = eventTypes.filter((type) => {
      const names = eventNames(type);
      return !names || !names[0].trim() || !names[1].trim();
    });
    expect(missing, `event types without a name in the console: ${missing.join(', ')}`).toEqual([]);
  });

  it('gives no two event types the same name in one language, so the filter lists each once', () => {
    for (const lang of ['en', 'de']) {
      const labels = labelledEventTypes(lang).map((t) => t.label);
      const twice = labels.filter((l, i) => labels.indexOf(l) !== i);
      expect(twice, `${lang}: named twice`).toEqual([]);
      expect(labels).toHaveLength(eventTypes.length);
    }
  });

  it('speaks the page language, and shows a type it does not know by its technical name', () => {
    expect(eventLabel('org.added', 'en')).toBe('Organization added');
    expect(eventLabel('org.added', 'de-DE')).toBe('Organisation hinzugefügt');
    expect(eventLabel('instance.idp.added', 'en')).not.toBe(eventLabel('org.idp.added', 'en'));
    expect(eventLabel('some.future.event', 'de')).toBe('some.future.event');
  });
});
