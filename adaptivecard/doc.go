// Package adaptivecard renders inquiries as Adaptive Cards 1.5 for Microsoft Teams and reads the
// data of a card's Action.Execute back. It is pure: records and a clock in, card JSON out, no
// network and no state.
//
// A question's card carries its answers as Action.Execute buttons (verb "answer") while they fit
// Teams' buttons (MaxButtons), and past that, or for a Choice of several, an Input.ChoiceSet and
// one Send button. Text, a Choice's own words and a reason ask with an Input.Text in the card.
// Every Action.Execute carries the inquiry key in its data, so the invoke it causes maps back to
// its inquiry with nothing else (ReadAction).
//
// The asker's text is shown only in TextRun inlines of a RichTextBlock, which Teams shows as they
// are (no markdown), after inquiry.Printed, inside an emphasis Container that marks where it
// begins and ends; the bot's own words are the only TextBlocks. An inquiry's proposal shows the
// same way, in monospace TextRuns (not the CodeBlock element, which only Teams parses): its
// first lines, and wherever it is shortened a sentence saying so with a "View all" link to the
// answer page, or, where the question names who may answer, a button that gets the clicker a
// link of their own (PersonalLinks, WithPage). Named shows people by the names Teams gives them.
package adaptivecard
