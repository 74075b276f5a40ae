import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ConversationEvent, ElicitationAnswer, ElicitationField } from '../../shared/ipc';
import type { ElicitationResult } from '../../shared/protocol';
import type { OnElicitation } from '../lanes/stream';
import { isRecord } from '../library/rules/json';

/**
 * The MCP elicitations of one conversation: an MCP server asks the user for something (`elicitation/create`),
 * the CLI passes it on as an `elicitation` control request, and each becomes an `elicitation_request` event
 * with its schema turned into simple form fields. It waits, without blocking the others, until the user
 * answers (Submit, Decline or Cancel), the CLI withdraws it, the user stops the turn, or the process ends.
 */

type ElicitationRequest = Parameters<OnElicitation>[0];

interface Waiting {
  fields: ElicitationField[];
  resolve(result: ElicitationResult): void;
}

/** An answer that does not fill the form as asked: refused with the reason, and the request keeps waiting. */
export class ElicitationAnswerRefused extends Error {
  override readonly name = 'InvalidRequest';
}

export class Elicitations {
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly emit: (event: ConversationEvent) => void) {}

  /** The session's elicitation handler. */
  readonly onElicitation: OnElicitation = (request, signal) =>
    new Promise<ElicitationResult>((resolve) => {
      const requestId = randomUUID();
      const mode = request.mode ?? (request.url ? 'url' : 'form');
      const fields = mode === 'form' ? fieldsOf(request) : [];
      this.waiting.set(requestId, { fields, resolve });
      signal.addEventListener(
        'abort',
        () => this.end(requestId, { action: 'cancel' }, 'Claude stopped waiting for an answer.'),
        { once: true },
      );
      this.emit({
        kind: 'elicitation_request',
        requestId,
        serverName: request.display_name ?? request.mcp_server_name,
        message: request.message,
        mode,
        url: request.url ?? null,
        fields,
      });
    });

  /**
   * Answers a request still waiting; false if it is not. An accepted answer must fill the form's required
   * fields with values of their types, or it is refused (and the request keeps waiting).
   */
  answer(requestId: string, answer: ElicitationAnswer): boolean {
    const waiting = this.waiting.get(requestId);
    if (!waiting) return false;
    if (answer.action !== 'accept') return this.end(requestId, answer, null);
    if (waiting.fields.some((field) => field.type === 'unsupported')) {
      throw new ElicitationAnswerRefused(
        'This form asks for something Byre cannot fill in; decline it instead.',
      );
    }
    const checked = contentSchema(waiting.fields).safeParse(answer.content);
    if (!checked.success) {
      throw new ElicitationAnswerRefused(
        checked.error.issues.map((issue) => `${issue.path.join('.') || 'form'}: ${issue.message}`).join('; '),
      );
    }
    const content = Object.fromEntries(
      Object.entries(checked.data).filter(
        (entry): entry is [string, string | number | boolean] => entry[1] !== undefined,
      ),
    );
    return this.end(requestId, { action: 'accept', content }, null);
  }

  /** Cancels every request still waiting (the user stopped the turn, or the process is gone). */
  cancelAll(reason: string): void {
    for (const requestId of [...this.waiting.keys()]) this.end(requestId, { action: 'cancel' }, reason);
  }

  private end(requestId: string, result: ElicitationResult, reason: string | null): boolean {
    const waiting = this.waiting.get(requestId);
    if (!waiting) return false;
    this.waiting.delete(requestId);
    waiting.resolve(result);
    this.emit({ kind: 'elicitation_resolved', requestId, outcome: result.action, reason });
    return true;
  }
}

/** One property of a requested schema, as far as a form can ask for it (MCP allows only flat primitives). */
const Property = z.looseObject({
  type: z.unknown().optional(),
  title: z.string().optional(),
  description: z.string().optional(),
  enum: z.array(z.unknown()).optional(),
  enumNames: z.array(z.unknown()).optional(),
  oneOf: z.array(z.unknown()).optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  default: z.unknown().optional(),
});

const Choice = z.looseObject({ const: z.string(), title: z.string().optional() });

/** The form's fields, in the order the server listed the properties. */
export function fieldsOf(request: ElicitationRequest): ElicitationField[] {
  const schema = request.requested_schema ?? {};
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const names = [
    ...(request.property_order ?? []).filter((name) => name in properties),
    ...Object.keys(properties).filter((name) => !(request.property_order ?? []).includes(name)),
  ];
  return names.map((name) => fieldOf(name, properties[name], required.has(name)));
}

function fieldOf(name: string, raw: unknown, required: boolean): ElicitationField {
  const parsed = Property.safeParse(raw);
  const property = parsed.success ? parsed.data : {};
  const base = {
    name,
    label: property.title ?? name,
    description: property.description ?? null,
    required,
    options: [] as ElicitationField['options'],
    minimum: property.minimum ?? null,
    maximum: property.maximum ?? null,
    default: primitive(property.default),
  };
  const choices = choicesOf(property);
  if (choices) return { ...base, type: 'choice', options: choices };
  switch (property.type) {
    case 'string':
      return { ...base, type: 'text' };
    case 'number':
    case 'integer':
    case 'boolean':
      return { ...base, type: property.type };
    default:
      return { ...base, type: 'unsupported' };
  }
}

/** A string property's choices: `enum` (labelled by `enumNames`) or `oneOf` of `{const, title}`. */
function choicesOf(property: z.infer<typeof Property>): ElicitationField['options'] | null {
  if (property.enum?.every((value) => typeof value === 'string')) {
    return property.enum.map((value, index) => {
      const label = property.enumNames?.[index];
      return { value, label: typeof label === 'string' ? label : value };
    });
  }
  if (property.oneOf) {
    const options = property.oneOf.map((option) => Choice.safeParse(option));
    if (options.every((option) => option.success)) {
      return options.map(({ data }) => ({ value: data.const, label: data.title ?? data.const }));
    }
  }
  return null;
}

/** What an accepted answer must hold: each field's value of its type, the required ones present. */
function contentSchema(fields: ElicitationField[]) {
  return z.strictObject(
    Object.fromEntries(
      fields.map((field) => {
        const value = valueSchema(field);
        return [field.name, field.required ? value : value.optional()];
      }),
    ),
  );
}

function valueSchema(field: ElicitationField): z.ZodType<string | number | boolean> {
  switch (field.type) {
    case 'boolean':
      return z.boolean();
    case 'number':
    case 'integer': {
      let number = field.type === 'integer' ? z.number().int() : z.number();
      if (field.minimum !== null) number = number.min(field.minimum);
      if (field.maximum !== null) number = number.max(field.maximum);
      return number;
    }
    case 'choice':
      return z.enum(field.options.map((option) => option.value) as [string, ...string[]]);
    default:
      return field.required ? z.string().min(1, 'Required') : z.string();
  }
}

function primitive(value: unknown): string | number | boolean | null {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : null;
}
