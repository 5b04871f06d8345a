import { javascript } from '@codemirror/lang-javascript';
import { python } from '@codemirror/lang-python';
import { HighlightStyle, StreamLanguage, syntaxHighlighting } from '@codemirror/language';
import { r } from '@codemirror/legacy-modes/mode/r';
import { shell } from '@codemirror/legacy-modes/mode/shell';
import { Compartment, EditorState, Prec, type Extension } from '@codemirror/state';
import { EditorView, keymap, placeholder as placeholderExt } from '@codemirror/view';
import { tags as t } from '@lezer/highlight';
import { basicSetup } from 'codemirror';
import { useEffect, useRef } from 'react';
import type { CodeLanguage } from '@box/contract/code';

/** Token colours that read on both themes' dark editor background (AA against #07090e). */
const highlight = HighlightStyle.define([
  { tag: [t.keyword, t.controlKeyword, t.definitionKeyword, t.moduleKeyword, t.operatorKeyword], color: '#c792ea' },
  { tag: [t.string, t.special(t.string)], color: '#a5e075' },
  { tag: [t.number, t.bool, t.null], color: '#f9ae58' },
  { tag: [t.comment, t.lineComment, t.blockComment], color: '#8b93a7', fontStyle: 'italic' },
  { tag: [t.function(t.variableName), t.function(t.propertyName)], color: '#7fc8ff' },
  { tag: [t.definition(t.variableName), t.className], color: '#ffd479' },
  { tag: [t.propertyName], color: '#9ad7ff' },
  { tag: [t.operator, t.punctuation], color: '#c3cad9' },
]);

const theme = EditorView.theme(
  {
    '&': { backgroundColor: '#07090e', color: '#e3e8f4', fontSize: '13px', borderRadius: '6px' },
    '.cm-content': { fontFamily: 'JetBrains Mono, DejaVu Sans Mono, Menlo, monospace', caretColor: '#3fdcaa' },
    '.cm-gutters': { backgroundColor: '#07090e', color: '#6b7386', border: 'none' },
    '.cm-activeLine, .cm-activeLineGutter': { backgroundColor: '#ffffff08' },
    '&.cm-focused': { outline: '1px solid #3fdcaa66' },
    '&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection': { backgroundColor: '#17c08e44' },
    '.cm-placeholder': { color: '#8b93a7' },
  },
  { dark: true },
);

const LANGUAGE_EXT: Record<CodeLanguage, () => Extension> = {
  python: () => python(),
  javascript: () => javascript(),
  typescript: () => javascript({ typescript: true }),
  r: () => StreamLanguage.define(r),
  bash: () => StreamLanguage.define(shell),
};
const languageExt = (l: CodeLanguage) => LANGUAGE_EXT[l]();

/**
 * One cell's code in CodeMirror 6: syntax highlighting for each language (R and bash with
 * CodeMirror's legacy stream modes), undo, brackets, search; Shift+Enter runs (`onRun`), the rest is the editor's.
 * The text is controlled: a new `value` from outside replaces the document.
 */
export function CellEditor({
  value,
  language,
  onChange,
  onRun,
  testId,
  placeholder = '',
  readOnly = false,
  autoFocus = false,
}: {
  value: string;
  language: CodeLanguage;
  onChange: (code: string) => void;
  onRun: () => void;
  testId: string;
  placeholder?: string;
  readOnly?: boolean;
  autoFocus?: boolean;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const lang = useRef(new Compartment());
  const ro = useRef(new Compartment());
  const ph = useRef(new Compartment());
  const handlers = useRef({ onChange, onRun });
  handlers.current = { onChange, onRun };

  useEffect(() => {
    const v = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          Prec.highest(
            keymap.of([
              {
                key: 'Shift-Enter',
                run: () => {
                  handlers.current.onRun();
                  return true;
                },
              },
            ]),
          ),
          basicSetup,
          theme,
          syntaxHighlighting(highlight),
          lang.current.of(languageExt(language)),
          ro.current.of([EditorState.readOnly.of(readOnly), EditorView.editable.of(!readOnly)]),
          ph.current.of(placeholderExt(placeholder)),
          EditorView.contentAttributes.of({ 'data-testid': testId, 'aria-label': `${language} code` }),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) handlers.current.onChange(u.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = v;
    if (autoFocus) v.focus();
    return () => v.destroy();
    // created once; later prop changes go through the compartments below
  }, []);

  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);
  useEffect(() => view.current?.dispatch({ effects: lang.current.reconfigure(languageExt(language)) }), [language]);
  useEffect(
    () => view.current?.dispatch({ effects: ro.current.reconfigure([EditorState.readOnly.of(readOnly), EditorView.editable.of(!readOnly)]) }),
    [readOnly],
  );
  useEffect(() => view.current?.dispatch({ effects: ph.current.reconfigure(placeholderExt(placeholder)) }), [placeholder]);

  return <div ref={host} className="min-w-0 flex-1" data-language={language} />;
}
