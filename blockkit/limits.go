package blockkit

// Block Kit limits, in characters (runes), from Slack's Block Kit reference unless marked. The
// renderer builds within them and the validator enforces them: one set of numbers.
const (
	maxMessageBlocks = 50  // blocks per message
	maxViewBlocks    = 100 // blocks per modal or Home tab

	maxText          = 3000 // any text object (text object reference: 1..3000)
	maxSectionText   = 3000 // section text
	maxSectionFields = 10   // section fields
	maxFieldText     = 2000 // each section field

	maxBlockID       = 255 // block_id of any block
	maxActionID      = 255 // action_id of any element
	maxActionsBlock  = 25  // elements in an actions block
	maxContextBlock  = 10  // elements in a context block (Block Kit reference, context block)
	maxHeaderText    = 150 // header text (Block Kit reference, header block)
	maxButtonText    = 75
	maxButtonValue   = 2000
	maxURL           = 3000 // button url, option url
	maxAccessibility = 75   // button accessibility_label

	maxSelectOptions = 100 // static_select options, and option_groups
	maxPlaceholder   = 150 // select and plain_text_input placeholder
	maxOptionText    = 75
	maxOptionValue   = 150
	maxOptionDesc    = 75
	maxCheckboxes    = 10 // checkboxes options
	maxRadioButtons  = 10 // radio_buttons options

	maxInputLength = 3000 // plain_text_input max_length (1..3000) and min_length (0..3000)
	maxInputLabel  = 2000 // input block label
	maxInputHint   = 2000 // input block hint

	maxConfirmTitle  = 100 // confirmation dialog title
	maxConfirmText   = 300 // confirmation dialog text
	maxConfirmButton = 30  // confirmation dialog confirm and deny

	maxViewTitle       = 24   // modal title, submit and close
	maxPrivateMetadata = 3000 // modal private_metadata
	maxCallbackID      = 255  // modal callback_id
	maxExternalID      = 255  // view external_id
	maxViewBytes       = 250 * 1000

	maxMessageText = 40000 // top-level message text: Slack truncates beyond this
)

// Thresholds of the rendering, chosen within the limits above.
const (
	maxButtons = 5 // a single choice with more options becomes a static_select
	// a multiple choice with more options than maxCheckboxes becomes a multi_static_select
)
